import { type TokenPair, EmailSchema } from '@kegel/contract';
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import { AppError, isUniqueViolation } from '../../errors';
import {
  type IdTokenVerifier,
  InvalidIdTokenError,
  isKeySetUnreachable,
  type VerifiedIdentity,
} from '../../security/id-token-verifier';
import * as authRepo from '../auth/repo';
import {
  CodeRefusedError,
  type GoogleCodeExchange,
  ProviderUnavailableError,
} from './google-code-exchange';
import * as repo from './repo';
import type { IdentityProviderName } from './repo';

/**
 * Sign in with Google and Apple (issue #6). A provider identity is its `sub`:
 *
 * - a known `sub` always reaches its account, whatever email comes with it (Apple sends the email
 *   only on the first sign-in; a changed Google address changes nothing);
 * - a new `sub` with a verified email that an account has links to that account;
 * - an unverified email never links: if its address already has an account, the sign-in is
 *   refused (that account's owner signs in as before); otherwise a new account is made;
 * - a new `sub` with no email cannot make an account (there would be no way to reach its owner).
 */
export interface SocialServiceDependencies {
  db: Kysely<Database>;
  startSession(userId: string): Promise<TokenPair>;
  google: { exchange: GoogleCodeExchange; verifier: IdTokenVerifier } | undefined;
  apple: { verifier: IdTokenVerifier } | undefined;
}

export const socialMessages = {
  googleOff: 'Sign in with Google is not available.',
  appleOff: 'Sign in with Apple is not available.',
  googleRefused: 'Google sign-in failed. Please try again.',
  appleRefused: 'Apple sign-in failed. Please try again.',
  unavailable: 'The sign-in service could not be reached. Please try again in a moment.',
  unverifiedEmailTaken:
    'An account with this email already exists, and your provider has not verified the address. Sign in with your password instead.',
  noEmail:
    'Your provider did not share an email address, so no account could be made. Allow sharing the email and try again.',
} as const;

export type SocialService = ReturnType<typeof createSocialService>;

export function createSocialService(deps: SocialServiceDependencies) {
  const { db } = deps;

  /** The account this identity signs in to, linking or creating it by the rules above. */
  async function accountFor(
    provider: IdentityProviderName,
    identity: VerifiedIdentity,
  ): Promise<string> {
    const email = usableEmail(identity.email);
    return db.transaction().execute(async (transaction) => {
      const known = await repo.findIdentity(transaction, provider, identity.subject);
      if (known) {
        await repo.recordIdentitySignIn(transaction, provider, identity.subject, email);
        return known.userId;
      }
      if (!email) throw new AppError(401, socialMessages.noEmail);
      const existing = await authRepo.findUserByEmail(transaction, email);
      if (existing && !identity.emailVerified) {
        throw new AppError(409, socialMessages.unverifiedEmailTaken);
      }
      const userId =
        existing?.id ?? (await authRepo.insertUser(transaction, { email, passwordHash: null })).id;
      await repo.insertIdentity(transaction, {
        provider,
        subject: identity.subject,
        userId,
        email,
      });
      return userId;
    });
  }

  async function signIn(
    provider: IdentityProviderName,
    identity: VerifiedIdentity,
  ): Promise<TokenPair> {
    // Two first sign-ins at once (a double click, the same email in two tabs) collide on the
    // unique identity or email; the one that lost runs again and finds what the other made.
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await deps.startSession(await accountFor(provider, identity));
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= 2) throw error;
      }
    }
  }

  /** Turns a provider failure into the caller's answer: 401 for a bad token, 503 if unreachable. */
  function refusal(error: unknown, refusedMessage: string): Error {
    if (error instanceof InvalidIdTokenError || error instanceof CodeRefusedError) {
      return new AppError(401, refusedMessage);
    }
    if (error instanceof ProviderUnavailableError || isKeySetUnreachable(error)) {
      return new AppError(503, socialMessages.unavailable);
    }
    return error as Error;
  }

  return {
    isGoogleOn: deps.google !== undefined,
    isAppleOn: deps.apple !== undefined,

    async signInWithGoogle(code: string): Promise<TokenPair> {
      const google = deps.google;
      if (!google) throw new AppError(404, socialMessages.googleOff);
      let identity: VerifiedIdentity;
      try {
        const idToken = await google.exchange.exchange(code);
        identity = await google.verifier.verify(idToken);
      } catch (error) {
        throw refusal(error, socialMessages.googleRefused);
      }
      return signIn('google', identity);
    },

    async signInWithApple(token: string, nonce: string | undefined): Promise<TokenPair> {
      const apple = deps.apple;
      if (!apple) throw new AppError(404, socialMessages.appleOff);
      let identity: VerifiedIdentity;
      try {
        identity = await apple.verifier.verify(token, { nonce });
      } catch (error) {
        throw refusal(error, socialMessages.appleRefused);
      }
      return signIn('apple', identity);
    },
  };
}

/** A provider's email, if it is one we can store (trimmed, valid, not too long). */
function usableEmail(email: string | null): string | null {
  if (!email) return null;
  const parsed = EmailSchema.safeParse(email);
  return parsed.success ? parsed.data : null;
}
