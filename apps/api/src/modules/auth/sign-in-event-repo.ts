// The SQL of sign-in events: the sign-ins and failed attempts of an account, and the "This wasn't
// me" codes of the new-device notices (ADR 019). No rules live here; sign-in-history.ts has them.
import { type Kysely, sql, type Transaction } from 'kysely';

import type { Database, SignInOutcome } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

export interface SignInEventToRecord {
  userId: string;
  method: string;
  outcome: SignInOutcome;
  deviceLabel: string;
  clientAddress: string;
  network: string;
  notMe?: { codeHash: string; validSeconds: number };
}

export async function insertSignInEvent(db: Executor, event: SignInEventToRecord): Promise<Date> {
  const { notMe, ...fields } = event;
  const row = await db
    .insertInto('signInEvents')
    .values({
      ...fields,
      notMeCodeHash: notMe?.codeHash ?? null,
      notMeExpiresAt: notMe
        ? sql<Date>`now() + make_interval(secs => ${notMe.validSeconds})`
        : null,
    })
    .returning('createdAt')
    .executeTakeFirstOrThrow();
  return row.createdAt;
}

/**
 * What a sign-in needs to know before it is recorded, in one statement: whether the account
 * signed in from this device and network within `withinDays`, and whether it has any sign-in
 * recorded (the pruning keeps each account's latest).
 */
export async function readSignInFamiliarity(
  db: Executor,
  input: {
    userId: string;
    deviceLabel: string;
    network: string;
    withinDays: number;
  },
) {
  const { rows } = await sql<{ seenHere: boolean; signedInBefore: boolean }>`
    select
      exists (
        select 1 from sign_in_events
        where user_id = ${input.userId} and outcome = 'success'
          and device_label = ${input.deviceLabel} and network = ${input.network}
          and created_at > now() - make_interval(days => ${input.withinDays})
      ) as seen_here,
      exists (
        select 1 from sign_in_events where user_id = ${input.userId} and outcome = 'success'
      ) as signed_in_before`.execute(db);
  return rows[0] ?? { seenHere: false, signedInBefore: false };
}

/** The account's latest events, newest first. */
export function listSignInEvents(db: Executor, userId: string, limit: number) {
  return db
    .selectFrom('signInEvents')
    .select(['id', 'createdAt', 'method', 'outcome', 'deviceLabel', 'clientAddress'])
    .where('userId', '=', userId)
    .orderBy('createdAt', 'desc')
    .orderBy('sequence', 'desc')
    .limit(limit)
    .execute();
}

/** Every event the account has (the data export), oldest first. */
export function listAllSignInEvents(db: Executor, userId: string) {
  return db
    .selectFrom('signInEvents')
    .select(['createdAt', 'method', 'outcome', 'deviceLabel', 'clientAddress'])
    .where('userId', '=', userId)
    .orderBy('createdAt')
    .orderBy('sequence')
    .execute();
}

function openNotMeCodes(db: Executor, codeHash: string) {
  return db
    .selectFrom('signInEvents')
    .where('notMeCodeHash', '=', codeHash)
    .where('notMeUsedAt', 'is', null)
    .where('notMeExpiresAt', '>', sql<Date>`now()`);
}

/** The account of a "This wasn't me" code that would be accepted now, without using it. */
export function findOpenNotMeCode(db: Executor, codeHash: string) {
  return openNotMeCodes(db, codeHash).select('userId').executeTakeFirst();
}

/**
 * Uses a "This wasn't me" code: one UPDATE that matches only an open, unexpired code, so two
 * clicks at once cannot both use it (the second waits for the row lock and finds it used).
 */
export function consumeNotMeCode(db: Executor, codeHash: string) {
  return db
    .updateTable('signInEvents')
    .set({ notMeUsedAt: sql<Date>`now()` })
    .where('id', 'in', openNotMeCodes(db, codeHash).select('id'))
    .where('notMeUsedAt', 'is', null)
    .returning(['id', 'userId', 'createdAt'])
    .executeTakeFirst();
}

/**
 * The address the notice of a sign-in was mailed to: its outbox row, written in the sign-in's
 * own transaction (so at the same now()) and kept while the account is.
 */
export async function findNoticeRecipient(
  db: Executor,
  signInEventId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('signInEvents')
    .innerJoin('outboxEmails', (join) =>
      join
        .onRef('outboxEmails.userId', '=', 'signInEvents.userId')
        .onRef('outboxEmails.createdAt', '=', 'signInEvents.createdAt'),
    )
    .select('outboxEmails.recipient')
    .where('signInEvents.id', '=', signInEventId)
    .where('outboxEmails.template', '=', 'new-sign-in')
    .executeTakeFirst();
  return row?.recipient;
}

/**
 * Deletes up to `limit` events older than `before`, except each account's latest sign-in: an
 * account with none recorded is one signing in for the first time, whose sign-in mails no
 * notice. The number deleted; bounded and ordered as deleteEndedSessions is, for the same reasons.
 */
export async function deleteSignInEventsBefore(
  db: Executor,
  before: Date,
  limit: number,
): Promise<number> {
  const result = await sql`
    delete from sign_in_events
    where id in (
      select old.id from sign_in_events old
      where old.created_at < ${before}
        and (old.outcome = 'failure' or exists (
          select 1 from sign_in_events newer
          where newer.user_id = old.user_id and newer.outcome = 'success'
            and (newer.created_at, newer.id) > (old.created_at, old.id)
        ))
      order by old.created_at
      limit ${limit}
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
