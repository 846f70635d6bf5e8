// A member's premium is derived from the ledger, never patched: every grant and every revocation
// is an entry, and the premium end (and each purchase's period) is recomputed from all of them in
// the transaction that writes one. Taking a refunded purchase out is then one entry, and the
// passes bought after it shift back by themselves.
//
// The rule for web passes: in the order they were granted, each adds its days after the later of
// the time it was granted and the end of the premium granted before it.
import type { Transaction } from 'kysely';

import type { Database, LedgerEntryKind, LedgerSource } from '../../db/schema';
import { withdrawStaleReminders } from '../premium-reminders';
import { usersRepo } from '../users';
import * as purchasesRepo from './purchases-repo';
import * as repo from './repo';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface LedgerEntry {
  source: LedgerSource;
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
  // A purchase counts unless the latest word on it is a revocation. For Stripe the latest is the
  // last written (each was decided on the state before it). For the App Store it is the latest
  // signed by Apple (then the last written): a refund signed after a reversal wins over it,
  // whatever order they were delivered in.
  const latestWord = new Map<string, LedgerEntry>();
  for (const entry of entries) {
    if (!entry.purchaseId || (entry.entry !== 'revoke' && entry.entry !== 'reinstate')) continue;
    const previous = latestWord.get(entry.purchaseId);
    const isLater =
      !previous ||
      entry.source !== 'app_store' ||
      entry.occurredAt.getTime() >= previous.occurredAt.getTime();
    if (isLater) latestWord.set(entry.purchaseId, entry);
  }
  const revoked = new Map<string, { at: Date; reason: string }>();
  for (const [purchaseId, word] of latestWord) {
    if (word.entry === 'revoke')
      revoked.set(purchaseId, { at: word.occurredAt, reason: word.reason });
  }

  const periods = new Map<string, { startsAt: Date; expiresAt: Date }>();
  // Web passes, one after another.
  let webEndsAt: Date | null = null;
  // App Store periods run side by side with them: the latest end counts.
  let appStoreEndsAt: Date | null = null;
  for (const { entry, purchaseId, days, endsAt, occurredAt } of entries) {
    if (entry === 'balance') {
      // The end as it stood before the ledger, when the purchases alone did not explain it.
      webEndsAt = endsAt;
    } else if (entry === 'grant' && purchaseId && days !== null && !revoked.has(purchaseId)) {
      const startsAt: Date =
        webEndsAt && webEndsAt.getTime() > occurredAt.getTime() ? webEndsAt : occurredAt;
      const expiresAt: Date = new Date(startsAt.getTime() + days * DAY_MS);
      periods.set(purchaseId, { startsAt, expiresAt });
      webEndsAt = expiresAt;
    } else if (entry === 'period' && purchaseId && endsAt && !revoked.has(purchaseId)) {
      // A grace period after an App Store period extends the same purchase.
      const known = periods.get(purchaseId);
      const period = {
        startsAt: known && known.startsAt < occurredAt ? known.startsAt : occurredAt,
        expiresAt: known && known.expiresAt > endsAt ? known.expiresAt : endsAt,
      };
      periods.set(purchaseId, period);
      if (!appStoreEndsAt || period.expiresAt > appStoreEndsAt) appStoreEndsAt = period.expiresAt;
    }
  }
  const endsAt =
    webEndsAt && appStoreEndsAt
      ? webEndsAt > appStoreEndsAt
        ? webEndsAt
        : appStoreEndsAt
      : (webEndsAt ?? appStoreEndsAt);
  return { endsAt, periods, revoked };
}

/**
 * Writes what the member's entries add up to: his end, and the period or revocation of each
 * purchase (a row already so is left as it is). The caller holds the member's row lock (every
 * function here takes it), so two changes of one member never interleave.
 */
async function writeState(
  transaction: Transaction<Database>,
  userId: string,
  state: PremiumState,
): Promise<PremiumState> {
  for (const [purchaseId, period] of state.periods) {
    await purchasesRepo.writePurchasePeriod(transaction, purchaseId, period);
  }
  for (const [purchaseId, revocation] of state.revoked) {
    await purchasesRepo.markPurchaseRevoked(transaction, purchaseId, revocation);
  }
  await usersRepo.writePremiumEnd(transaction, userId, state.endsAt);
  // A reminder of the end before, not mailed yet, would now tell a wrong date.
  await withdrawStaleReminders(transaction, userId, state.endsAt);
  return state;
}

/** Recomputes the member's premium from his entries and writes it. */
async function recompute(
  transaction: Transaction<Database>,
  userId: string,
): Promise<PremiumState> {
  return writeState(transaction, userId, foldLedger(await repo.listEntries(transaction, userId)));
}

async function currentState(
  transaction: Transaction<Database>,
  userId: string,
): Promise<PremiumState> {
  await usersRepo.lockUser(transaction, userId);
  return foldLedger(await repo.listEntries(transaction, userId));
}

/** Days added after the member's current end: a pass paid on the web, or granted by support. */
export interface NewPass {
  userId: string;
  source: 'stripe' | 'support';
  days: number;
  /** 'payment' for a paid pass; the operator's reason for a support grant. */
  reason: string;
  grantedAt: Date;
}

/** Stands for the purchase of a pass before it is written (its id is not known yet). */
const PASS_BEING_ADDED = 'the pass being added';

/**
 * Adds a pass with its purchase. `recordPurchase` is given the period the pass will have (the
 * member's entries folded with it last) and writes the purchase with it, answering its id, or
 * undefined when that payment was recorded before: then nothing is added and this answers
 * undefined. A purchase written with a placeholder and then given its period was written twice:
 * a second entry in every index of purchases (its end is indexed, so that update is never HOT)
 * and a dead row version (issue 30).
 */
export async function addPass(
  transaction: Transaction<Database>,
  pass: NewPass,
  recordPurchase: (period: { startsAt: Date; expiresAt: Date }) => Promise<string | undefined>,
): Promise<
  | { purchaseId: string; period: { startsAt: Date; expiresAt: Date }; endsAt: Date | null }
  | undefined
> {
  // The member's row first, before the purchase's reference to it takes a weaker lock that two
  // grants would then both try to raise (a deadlock).
  await usersRepo.lockUser(transaction, pass.userId);
  const entries = await repo.listEntries(transaction, pass.userId);
  const entryOf = (purchaseId: string): LedgerEntry => ({
    source: pass.source,
    entry: 'grant',
    purchaseId,
    days: pass.days,
    endsAt: null,
    reason: pass.reason,
    occurredAt: pass.grantedAt,
  });
  const ahead = foldLedger([...entries, entryOf(PASS_BEING_ADDED)]).periods.get(PASS_BEING_ADDED);
  if (!ahead) throw new Error('a new pass folded to no period');
  const purchaseId = await recordPurchase(ahead);
  if (!purchaseId) return undefined;
  const entry = entryOf(purchaseId);
  await repo.appendEntry(transaction, { userId: pass.userId, ...entry });
  // The lock is held since the entries were read: they and this one are all there is.
  const state = await writeState(transaction, pass.userId, foldLedger([...entries, entry]));
  const period = state.periods.get(purchaseId);
  if (!period) throw new Error(`the pass ${purchaseId} was granted but has no period`);
  return { purchaseId, period, endsAt: state.endsAt };
}

/**
 * Takes the days of a support grant out (the passes after it shift back, as for a refund);
 * answers the member's new end, or false when the grant was out already.
 */
export async function removeSupportGrant(
  transaction: Transaction<Database>,
  removal: { userId: string; purchaseId: string; reason: string; at: Date },
): Promise<{ endsAt: Date | null } | false> {
  const state = await currentState(transaction, removal.userId);
  if (state.revoked.has(removal.purchaseId)) return false;
  await repo.appendEntry(transaction, {
    userId: removal.userId,
    source: 'support',
    entry: 'revoke',
    purchaseId: removal.purchaseId,
    reason: removal.reason,
    occurredAt: removal.at,
  });
  return { endsAt: (await recompute(transaction, removal.userId)).endsAt };
}

/**
 * Writes a Stripe word on whether a purchase counts (a revocation or a reinstatement) when it
 * changes something; false when the purchase was already so.
 */
async function changeStripePurchase(
  transaction: Transaction<Database>,
  entry: 'revoke' | 'reinstate',
  word: { userId: string; purchaseId: string; reason: string; at: Date },
): Promise<boolean> {
  const state = await currentState(transaction, word.userId);
  if (state.revoked.has(word.purchaseId) === (entry === 'revoke')) return false;
  await repo.appendEntry(transaction, {
    userId: word.userId,
    source: 'stripe',
    entry,
    purchaseId: word.purchaseId,
    reason: word.reason,
    occurredAt: word.at,
  });
  await recompute(transaction, word.userId);
  return true;
}

/** Takes a Stripe purchase's days out; false when it was already out. */
export function revokePurchase(
  transaction: Transaction<Database>,
  revocation: { userId: string; purchaseId: string; reason: string; at: Date },
): Promise<boolean> {
  return changeStripePurchase(transaction, 'revoke', revocation);
}

/** Puts a revoked Stripe purchase's days back (a dispute won on appeal); false when it counted. */
export function reinstatePurchase(
  transaction: Transaction<Database>,
  reinstatement: { userId: string; purchaseId: string; reason: string; at: Date },
): Promise<boolean> {
  return changeStripePurchase(transaction, 'reinstate', reinstatement);
}

/**
 * Gives an App Store purchase (one transaction) premium until `endsAt` (its expiresDate, or the
 * end of the grace period after it); nothing is written when a period of it already reaches that
 * far. That holds while the purchase is revoked too (its periods are kept for a reversal), so a
 * transaction posted again after its refund, any number of times, writes nothing.
 */
export async function recordAppStorePeriod(
  transaction: Transaction<Database>,
  period: { userId: string; purchaseId: string; startsAt: Date; endsAt: Date; reason: string },
): Promise<void> {
  await usersRepo.lockUser(transaction, period.userId);
  const entries = await repo.listEntries(transaction, period.userId);
  const isKnownAlready = entries.some(
    (entry) =>
      entry.entry === 'period' &&
      entry.purchaseId === period.purchaseId &&
      entry.endsAt !== null &&
      entry.endsAt.getTime() >= period.endsAt.getTime(),
  );
  if (isKnownAlready) return;
  await repo.appendEntry(transaction, {
    userId: period.userId,
    source: 'app_store',
    entry: 'period',
    purchaseId: period.purchaseId,
    endsAt: period.endsAt,
    reason: period.reason,
    occurredAt: period.startsAt,
  });
  await recompute(transaction, period.userId);
}

/**
 * Apple's word, signed at `signedAt`, on whether an App Store purchase counts (a refund or
 * revocation: no; a refund reversed: yes). Written unless the latest word on it is at least as
 * recent (the fold takes the latest signed, so words delivered out of order end right) or says
 * so already: the same refunded transaction signed again and again (a restore may bring a new
 * signature) adds no row.
 */
export async function recordAppStoreWord(
  transaction: Transaction<Database>,
  word: { userId: string; purchaseId: string; counts: boolean; reason: string; signedAt: Date },
): Promise<void> {
  await usersRepo.lockUser(transaction, word.userId);
  const entries = await repo.listEntries(transaction, word.userId);
  // The latest word as the fold reads them: the latest signed, then the last written.
  let latest: (typeof entries)[number] | undefined;
  for (const entry of entries) {
    if (entry.purchaseId !== word.purchaseId) continue;
    if (entry.entry !== 'revoke' && entry.entry !== 'reinstate') continue;
    if (!latest || entry.occurredAt.getTime() >= latest.occurredAt.getTime()) latest = entry;
  }
  const entry = word.counts ? 'reinstate' : 'revoke';
  const isKnownAlready =
    latest !== undefined &&
    (latest.occurredAt.getTime() >= word.signedAt.getTime() || latest.entry === entry);
  if (isKnownAlready) return;
  await repo.appendEntry(transaction, {
    userId: word.userId,
    source: 'app_store',
    entry,
    purchaseId: word.purchaseId,
    reason: word.reason,
    occurredAt: word.signedAt,
  });
  await recompute(transaction, word.userId);
}
