// The member's own account as the web app shows it.
import {
  type DataExport,
  fromMinorUnits,
  type Preferences,
  type Profile,
  type UpdatePreferencesRequest,
} from '@kegel/contract';
import { isLocale, type Locale } from '@kegel/contract/i18n';
import type { Kysely, Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import type { SignedInAccount } from '../../plugins/authenticate';
import { AppError, SESSION_ENDED_MESSAGE } from '../../errors';
import * as exportRepo from './export-repo';
import * as usersRepo from './repo';

/** A stored language the product still speaks, else null (read as English). */
const storedLocale = (value: string | null): Locale | null => (isLocale(value) ? value : null);

const iso = (value: Date | null): string | null => value?.toISOString() ?? null;

type PreferenceRow = NonNullable<Awaited<ReturnType<typeof usersRepo.readPreferences>>>;

function preferencesOf(row: PreferenceRow | undefined): Preferences {
  // The session was checked a moment ago: a missing row is an account deleted since.
  if (!row) throw new AppError(401, SESSION_ENDED_MESSAGE);
  return {
    appleConsumptionConsent: row.appleConsumptionConsent,
    appleConsumptionConsentChangedAt: iso(row.appleConsumptionConsentChangedAt),
    expiryReminders: row.expiryReminders,
    locale: storedLocale(row.locale),
  };
}

export type UsersService = ReturnType<typeof createUsersService>;

type SignInRow = NonNullable<
  Awaited<ReturnType<typeof exportRepo.readMemberData>>
>['signIns'][number];

/** One sign-in or failed attempt as the export (and Account Settings) shows it. */
function exportedSignIn(event: SignInRow): DataExport['signIns'][number] {
  return {
    at: event.createdAt.toISOString(),
    method: event.method,
    device: event.deviceLabel,
    address: event.clientAddress,
    outcome: event.outcome,
  };
}

type RefundRequestRow = NonNullable<
  Awaited<ReturnType<typeof exportRepo.readMemberData>>
>['appleRefundRequests'][number];

function exportedRefundRequest(
  request: RefundRequestRow,
): DataExport['appleRefundRequests'][number] {
  return {
    requestedAt: request.requestedAt.toISOString(),
    reason: request.reason,
    outcome: request.outcome,
    closedAt: iso(request.closedAt),
  };
}

type PasskeyRow = NonNullable<
  Awaited<ReturnType<typeof exportRepo.readMemberData>>
>['passkeys'][number];

/** A passkey as the export shows it: what the member may read, never its key. */
function exportedPasskey(passkey: PasskeyRow): DataExport['passkeys'][number] {
  return {
    name: passkey.name,
    createdAt: passkey.createdAt.toISOString(),
    lastUsedAt: iso(passkey.lastUsedAt),
    transports: passkey.transports,
  };
}

type PurchaseRow = NonNullable<
  Awaited<ReturnType<typeof exportRepo.readMemberData>>
>['purchases'][number];

/** A purchase as the export shows it: amounts in whole units of its currency (¥1200, $9.99). */
function exportedPurchase(purchase: PurchaseRow): DataExport['purchases'][number] {
  return {
    plan: purchase.planName,
    provider: purchase.provider,
    environment: purchase.environment,
    amount: fromMinorUnits(purchase.amountCents, purchase.currency),
    currency: purchase.currency,
    purchasedAt: purchase.createdAt.toISOString(),
    startsAt: purchase.startsAt.toISOString(),
    expiresAt: purchase.expiresAt.toISOString(),
    refundedAt: iso(purchase.revokedAt),
    refundedAmount:
      purchase.amountRefundedCents === null
        ? null
        : fromMinorUnits(purchase.amountRefundedCents, purchase.currency),
  };
}

export interface UsersServiceDependencies {
  db: Kysely<Database>;
  /**
   * Withdraws the reminders before premium ends still waiting in the outbox, in the transaction
   * that turns them off (modules/premium-reminders): the outbox would retry one long before the
   * reminders' next run noticed.
   */
  withdrawWaitingReminders?: (transaction: Transaction<Database>, userId: string) => Promise<void>;
}

/** Saves the changes; reminders turned off take the ones waiting in the outbox with them. */
async function updatePreferences(
  deps: UsersServiceDependencies,
  userId: string,
  changes: UpdatePreferencesRequest,
): Promise<Preferences> {
  return preferencesOf(
    await deps.db.transaction().execute(async (transaction) => {
      const changed = await usersRepo.updatePreferences(transaction, userId, changes);
      if (changed && changes.expiryReminders === false)
        await deps.withdrawWaitingReminders?.(transaction, userId);
      return changed;
    }),
  );
}

export function createUsersService(deps: UsersServiceDependencies) {
  return {
    /**
     * Who is signed in, and until when premium lasts (null: never bought). The account comes
     * with the call (read with its session): no query of its own.
     */
    readProfile(account: SignedInAccount): Profile {
      return {
        id: account.id,
        email: account.email,
        subscriptionEndDate: account.subscriptionEndDate?.toISOString() ?? null,
        hasPassword: account.hasPassword,
        twoStepEnabled: account.twoStepEnabled,
        locale: storedLocale(account.locale),
      };
    },

    async readPreferences(userId: string): Promise<Preferences> {
      return preferencesOf(await usersRepo.readPreferences(deps.db, userId));
    },

    updatePreferences: (userId: string, changes: UpdatePreferencesRequest) =>
      updatePreferences(deps, userId, changes),

    /** "Download your data": what the product keeps about the member, never a secret. */
    async exportData(userId: string): Promise<DataExport> {
      const data = await exportRepo.readMemberData(deps.db, userId);
      if (!data) throw new AppError(401, SESSION_ENDED_MESSAGE);
      const { user } = data;
      return {
        exportedAt: new Date().toISOString(),
        profile: {
          id: user.id,
          email: user.email,
          createdAt: user.createdAt.toISOString(),
          emailVerifiedAt: iso(user.emailVerifiedAt),
          hasPassword: user.passwordHash !== null,
          subscriptionEndDate: iso(user.subscriptionEndDate),
          twoStepEnabled: Boolean(user.twoStepEnabled),
        },
        identities: data.identities.map((identity) => ({
          provider: identity.provider,
          email: identity.email,
          linkedAt: identity.createdAt.toISOString(),
          lastSignInAt: identity.lastSignInAt.toISOString(),
        })),
        sessions: data.sessions.map((session) => ({
          createdAt: session.createdAt.toISOString(),
          lastUsedAt: session.lastUsedAt.toISOString(),
          expiresAt: session.expiresAt.toISOString(),
          endedAt: iso(session.revokedAt),
          device: session.deviceLabel,
          method: session.signInMethod,
        })),
        purchases: data.purchases.map(exportedPurchase),
        appStoreSubscriptions: data.appStoreSubscriptions.map((subscription) => ({
          originalTransactionId: subscription.originalTransactionId,
          productId: subscription.productId,
          environment: subscription.environment,
          autoRenew: subscription.autoRenew,
          gracePeriodExpiresAt: iso(subscription.gracePeriodExpiresAt),
        })),
        passkeys: data.passkeys.map(exportedPasskey),
        emails: data.emails.map((email) => ({
          template: email.template,
          recipient: email.recipient,
          createdAt: email.createdAt.toISOString(),
          sentAt: iso(email.sentAt),
        })),
        signIns: data.signIns.map(exportedSignIn),
        preferences: preferencesOf(data.preferences),
        appleRefundRequests: data.appleRefundRequests.map(exportedRefundRequest),
      };
    },
  };
}
