// "Delete account" (ADR 014): its rule. The route is routes.ts, the SQL repo.ts, and Stripe's
// clean-up stripe-customers.ts; what it needs of the account's credentials and sessions comes from
// the auth service.
import { deleteAccountMessages } from '@kegel/contract';
import type { Kysely, Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import { AppError, SESSION_ENDED_MESSAGE } from '../../errors';
import { deleteUnownedMailTo, type Mailer } from '../../mail/outbox';
import { mailLocaleOf } from '../../mail/mail-locale';
import { accountDeletedEmail } from '../../mail/templates';
import type { Caller } from '../../security/client-address';
import type { AuditTrail } from '../audit';
import type { AuthService } from '../auth';
import { endRoleOfDeletedAccount } from '../operators';
import { usersRepo } from '../users';
import * as deletionRepo from './repo';
import type { StripeCustomerCleanUp } from './stripe-customers';

/** An account without a password is deleted only from a session begun this recently. */
export const RECENT_SIGN_IN_SECONDS = 10 * 60;

export interface AccountDeletionDependencies {
  db: Kysely<Database>;
  mail: Mailer;
  supportEmail: string;
  auth: Pick<AuthService, 'confirmCurrentPassword' | 'sessionStartedAt' | 'hasOpenEmailChangeUndo'>;
  stripeCustomers: Pick<StripeCustomerCleanUp, 'deleteCustomer'>;
  /** The audit rows about him keep a pseudonym instead of his email (ADR 020). */
  auditTrail: Pick<AuditTrail, 'pseudonymise' | 'record'>;
  /** Two-step sign-in: while it is on, deleting the account takes a current code too (ADR 018). */
  secondStep: {
    requireSecondFactorIfOn(
      userId: string,
      code: string | undefined,
      caller: Caller,
    ): Promise<void>;
  };
}

export type AccountDeletionService = ReturnType<typeof createAccountDeletionService>;

export function createAccountDeletionService(deps: AccountDeletionDependencies) {
  const { db } = deps;

  return {
    /**
     * "Delete account": proven by the current password, or, for an account without one, by a
     * sign-in within RECENT_SIGN_IN_SECONDS, and by a current code while two-step sign-in is on. An active App Store subscription must be
     * acknowledged first, as deleting the account does not cancel it. The row goes with
     * everything that is the member's alone, his mail records too; purchases stay, tied to no one
     * (ADR 014). The confirmation goes to the address in the same transaction.
     */
    async deleteAccount(
      input: {
        userId: string;
        sessionId: string;
        password?: string;
        keepsAppStoreSubscription?: boolean;
        code?: string;
      },
      caller: Caller,
    ): Promise<void> {
      const user = await usersRepo.findUserById(db, input.userId);
      if (!user) throw new AppError(401, SESSION_ENDED_MESSAGE);
      if (user.passwordHash) {
        if (input.password === undefined) {
          throw new AppError(400, deleteAccountMessages.passwordNeeded);
        }
        await deps.auth.confirmCurrentPassword(user, input.password, caller);
      } else {
        const startedAt = await deps.auth.sessionStartedAt(input.sessionId);
        if (!startedAt) throw new AppError(401, SESSION_ENDED_MESSAGE);
        if (Date.now() - startedAt.getTime() > RECENT_SIGN_IN_SECONDS * 1000) {
          throw new AppError(403, deleteAccountMessages.signInAgain);
        }
      }
      await deps.secondStep.requireSecondFactorIfOn(user.id, input.code, caller);
      // Deleting the account would void the link its previous address holds (ADR 016).
      if (await deps.auth.hasOpenEmailChangeUndo(user.id)) {
        throw new AppError(409, deleteAccountMessages.undoWindowOpen);
      }
      const hasAppStoreSubscription = await deletionRepo.hasActiveAppStoreSubscription(db, user.id);
      if (hasAppStoreSubscription && input.keepsAppStoreSubscription !== true) {
        throw new AppError(409, deleteAccountMessages.appStoreSubscriptionActive);
      }
      const deleted = await db.transaction().execute(async (transaction) => {
        await usersRepo.lockUser(transaction, user.id);
        const current = await usersRepo.findUserById(transaction, user.id);
        const customer = await usersRepo.findStripeCustomer(transaction, user.id);
        // Deleted meanwhile (a second tab), or its credentials changed since they were checked.
        if (!current || !customer || current.credentialVersion !== user.credentialVersion) {
          return undefined;
        }
        await forgetOutsideHisRows(deps, transaction, current, caller);
        await usersRepo.deleteUser(transaction, user.id);
        // Stripe forgets the customer after the commit; the row makes sure it happens.
        if (customer.stripeCustomerId) {
          await deletionRepo.recordStripeCustomerDeletion(transaction, customer.stripeCustomerId);
        }
        await deps.mail.enqueue(transaction, {
          to: current.email,
          // About an account that is gone: nothing to delete it with.
          userId: null,
          template: 'account-deleted',
          content: accountDeletedEmail({
            hadAppStoreSubscription: hasAppStoreSubscription,
            supportEmail: deps.supportEmail,
            locale: mailLocaleOf(current),
          }),
        });
        return { stripeCustomerId: customer.stripeCustomerId };
      });
      if (!deleted) throw new AppError(401, SESSION_ENDED_MESSAGE);
      // Not awaited: the account is gone whatever Stripe answers (failures are logged and retried).
      void deps.stripeCustomers.deleteCustomer({
        userId: user.id,
        stripeCustomerId: deleted.stripeCustomerId,
      });
    },
  };
}

/**
 * What names the member outside the rows that go with his account: mail waiting for his
 * addresses, his operator role (its end written to the audit trail), and his email in the trail,
 * which becomes a pseudonym (ADR 020).
 */
async function forgetOutsideHisRows(
  deps: Pick<AccountDeletionDependencies, 'auditTrail'>,
  transaction: Transaction<Database>,
  member: { id: string; email: string },
  caller: Caller,
): Promise<void> {
  const requested = await deletionRepo.listRequestedEmails(transaction, member.id);
  await deleteUnownedMailTo(transaction, [member.email, ...requested]);
  await endRoleOfDeletedAccount(transaction, deps.auditTrail, member, caller);
  await deps.auditTrail.pseudonymise(transaction, member.id);
}
