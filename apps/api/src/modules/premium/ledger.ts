// A member's premium is derived from the ledger, never patched: every grant and every revocation
// is an entry, and the premium end (and each purchase's period) is recomputed from all of them in
// the transaction that writes one. Taking a refunded purchase out is then one entry, and the
// passes bought after it shift back by themselves.
//
// The rule for web passes: in the order they were granted, each adds its days after the later of
// the time it was granted and the end of the premium granted before it.
import type { Transaction } from 'kysely';

import type { Database, LedgerEntryKind } from '../../db/schema';
import * as usersRepo from '../users/repo';
import * as repo from './repo';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface LedgerEntry {
  entry: LedgerEntryKind;
  purchaseId: string | null;
  days: number | null;
  endsAt: Date | null;
  reason: string;
  occurredAt: Date;
}

export interface PremiumState {
  endsAt: Date | null;
  /** The period of every purchase that counts. */
  periods: Map<string, { startsAt: Date; expiresAt: Date }>;
  /** The purchases taken out, with the entry that took them out. */
  revoked: Map<string, { at: Date; reason: string }>;
}

/** What the entries add up to, read in the order they were written. */
export function foldLedger(entries: readonly LedgerEntry[]): PremiumState {
  // A purchase counts unless its latest revocation was not reinstated since.
  const revoked = new Map<string, { at: Date; reason: string }>();
  for (const { entry, purchaseId, occurredAt, reason } of entries) {
    if (!purchaseId) continue;
    if (entry === 'revoke') revoked.set(purchaseId, { at: occurredAt, reason });
    if (entry === 'reinstate') revoked.delete(purchaseId);
  }

  const periods = new Map<string, { startsAt: Date; expiresAt: Date }>();
  let endsAt: Date | null = null;
  for (const { entry, purchaseId, days, endsAt: balance, occurredAt } of entries) {
    if (entry === 'balance') {
      // The end as it stood before the ledger, when the purchases alone did not explain it.
      endsAt = balance;
    } else if (entry === 'grant' && purchaseId && days !== null && !revoked.has(purchaseId)) {
      const startsAt: Date =
        endsAt && endsAt.getTime() > occurredAt.getTime() ? endsAt : occurredAt;
      const expiresAt: Date = new Date(startsAt.getTime() + days * DAY_MS);
      periods.set(purchaseId, { startsAt, expiresAt });
      endsAt = expiresAt;
    }
  }
  return { endsAt, periods, revoked };
}

/**
 * Recomputes the member's premium from his entries and writes it: his end, and the period or
 * revocation of each purchase. The caller holds the member's row lock (every function here
 * takes it), so two changes of one member never interleave.
 */
async function recompute(
  transaction: Transaction<Database>,
  userId: string,
): Promise<PremiumState> {
  const state = foldLedger(await repo.listEntries(transaction, userId));
  for (const [purchaseId, period] of state.periods) {
    await repo.writePurchasePeriod(transaction, purchaseId, period);
  }
  for (const [purchaseId, revocation] of state.revoked) {
    await repo.markPurchaseRevoked(transaction, purchaseId, revocation);
  }
  await repo.writePremiumEnd(transaction, userId, state.endsAt);
  return state;
}

async function currentState(
  transaction: Transaction<Database>,
  userId: string,
): Promise<PremiumState> {
  await usersRepo.lockUser(transaction, userId);
  return foldLedger(await repo.listEntries(transaction, userId));
}

/** Adds a paid web pass; returns its period. */
export async function grantPass(
  transaction: Transaction<Database>,
  pass: { userId: string; purchaseId: string; days: number; grantedAt: Date },
): Promise<{ startsAt: Date; expiresAt: Date }> {
  await usersRepo.lockUser(transaction, pass.userId);
  await repo.appendEntry(transaction, {
    userId: pass.userId,
    source: 'stripe',
    entry: 'grant',
    purchaseId: pass.purchaseId,
    days: pass.days,
    reason: 'payment',
    occurredAt: pass.grantedAt,
  });
  const state = await recompute(transaction, pass.userId);
  const period = state.periods.get(pass.purchaseId);
  if (!period) throw new Error(`the pass ${pass.purchaseId} was granted but has no period`);
  return period;
}

/** Takes a purchase's days out; false when it was already out. */
export async function revokePurchase(
  transaction: Transaction<Database>,
  revocation: { userId: string; purchaseId: string; reason: string; at: Date },
): Promise<boolean> {
  const state = await currentState(transaction, revocation.userId);
  if (state.revoked.has(revocation.purchaseId)) return false;
  await repo.appendEntry(transaction, {
    userId: revocation.userId,
    source: 'stripe',
    entry: 'revoke',
    purchaseId: revocation.purchaseId,
    reason: revocation.reason,
    occurredAt: revocation.at,
  });
  await recompute(transaction, revocation.userId);
  return true;
}

/** Puts a revoked purchase's days back (a dispute won on appeal); false when it counted. */
export async function reinstatePurchase(
  transaction: Transaction<Database>,
  reinstatement: { userId: string; purchaseId: string; reason: string; at: Date },
): Promise<boolean> {
  const state = await currentState(transaction, reinstatement.userId);
  if (!state.revoked.has(reinstatement.purchaseId)) return false;
  await repo.appendEntry(transaction, {
    userId: reinstatement.userId,
    source: 'stripe',
    entry: 'reinstate',
    purchaseId: reinstatement.purchaseId,
    reason: reinstatement.reason,
    occurredAt: reinstatement.at,
  });
  await recompute(transaction, reinstatement.userId);
  return true;
}
