// Registration: a new account with email and password.

import { AppError, isUniqueViolation } from '../../errors';
import type { Caller } from '../../security/client-address';
import { usersRepo } from '../users';
import type { CredentialChecks } from './credential-checks';
import { type AuthServiceDependencies, messages } from './rules';

export function createRegistration(deps: AuthServiceDependencies, checks: CredentialChecks) {
  const { db, hasher, rateLimiter } = deps;

  return {
    async register(
      input: { email: string; password: string },
      caller: Caller,
    ): Promise<{ id: string; email: string }> {
      await checks.spendAttempt(caller);
      await deps.passwordScreen.assertAcceptable(input.password);
      const created = await rateLimiter.peek(deps.registrationsPerAddress, caller.clientAddress);
      if (created.count >= deps.registrationsPerAddress.limit) {
        throw new AppError(429, messages.tooManyRegistrations, created.retryAfterSeconds);
      }
      // Cheap checks before the costly hash.
      if (await checks.isAddressTaken(input.email)) throw new AppError(409, messages.emailTaken);
      const passwordHash = await hasher.hash(input.password);
      try {
        const user = await usersRepo.insertUser(db, {
          email: input.email,
          passwordHash,
          // The page he registered on speaks his language: his mails will too.
          ...(caller.locale ? { locale: caller.locale } : {}),
        });
        // Accounts made are counted, not attempts.
        await rateLimiter.hit(deps.registrationsPerAddress, caller.clientAddress);
        return user;
      } catch (error) {
        if (isUniqueViolation(error)) throw new AppError(409, messages.emailTaken);
        throw error;
      }
    },
  };
}
