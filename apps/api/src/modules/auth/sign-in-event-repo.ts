// The SQL of sign-in events: the sign-ins and failed attempts of an account, and the "This wasn't
// me" codes of the new-device notices (ADR 019). No rules live here; sign-in-history.ts has them.
import { CompiledQuery, type Kysely, sql, type Transaction } from 'kysely';

import { preparedStatement } from '../../db/prepared-statements';
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

/**
 * Every sign-in and failed attempt writes one event: its SQL is written once and prepared
 * (db/prepared-statements.ts), as are the other statements of a sign-in. A sign-in's statements
 * are most of its event loop's time on PGlite (npm run bench, issue 30).
 */
const INSERT_SIGN_IN_EVENT_SQL = preparedStatement(
  'insert_sign_in_event',
  `insert into sign_in_events
    (user_id, method, outcome, device_label, client_address, network, not_me_code_hash,
      not_me_expires_at)
  values ($1, $2, $3, $4, $5, $6, $7::text,
    case when $8::int is null then null else now() + make_interval(secs => $8::int) end)
  returning created_at`,
);

export async function insertSignInEvent(db: Executor, event: SignInEventToRecord): Promise<Date> {
  // Kysely's CamelCasePlugin names the column createdAt.
  const result = await db.executeQuery<{ createdAt: Date }>(
    CompiledQuery.raw(INSERT_SIGN_IN_EVENT_SQL, [
      event.userId,
      event.method,
      event.outcome,
      event.deviceLabel,
      event.clientAddress,
      event.network,
      event.notMe?.codeHash ?? null,
      event.notMe?.validSeconds ?? null,
    ]),
  );
  const row = result.rows[0];
  if (!row) throw new Error('sign-in event: nothing was inserted');
  return row.createdAt;
}

/**
 * Whether a sign-in needs no notice: the account signed in from this device and network within
 * the last days, or has no sign-in recorded at all (the pruning keeps each account's latest). SQL
 * over the statement's parameters named here (`$1`…), for the statements that record a sign-in
 * only if so: this one, and the opening of a session (session-repo.ts).
 */
export function familiarSignInCondition(parameters: {
  userId: string;
  deviceLabel: string;
  network: string;
  withinDays: string;
}): string {
  const { userId, deviceLabel, network, withinDays } = parameters;
  return `exists (
      select 1 from sign_in_events
      where user_id = ${userId}::uuid and outcome = 'success'
        and device_label = ${deviceLabel}::text and network = ${network}::text
        and created_at > now() - make_interval(days => ${withinDays}::int)
    )
    or not exists (select 1 from sign_in_events where user_id = ${userId}::uuid and outcome = 'success')`;
}

/**
 * The usual sign-in in one statement: its event is inserted only if it needs no notice
 * (familiarSignInCondition). No row back: the sign-in is new here, and the caller records it with
 * its notice.
 */
const INSERT_FAMILIAR_SIGN_IN_SQL = preparedStatement(
  'insert_familiar_sign_in',
  `insert into sign_in_events (user_id, method, outcome, device_label, client_address, network)
  select $1::uuid, $2::text, 'success', $3::text, $4::text, $5::text
  where ${familiarSignInCondition({ userId: '$1', deviceLabel: '$3', network: '$5', withinDays: '$6' })}
  returning created_at`,
);

export async function insertFamiliarSignIn(
  db: Executor,
  event: Omit<SignInEventToRecord, 'outcome' | 'notMe'> & { withinDays: number },
): Promise<boolean> {
  const { rows } = await db.executeQuery(
    CompiledQuery.raw(INSERT_FAMILIAR_SIGN_IN_SQL, [
      event.userId,
      event.method,
      event.deviceLabel,
      event.clientAddress,
      event.network,
      event.withinDays,
    ]),
  );
  return rows.length > 0;
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
 * notice. How many were due and how many this deleted; bounded, ordered and read before it
 * deletes, as deleteEndedSessions is, for the same reasons. (The DELETE then finds the events by
 * their ids, which are time-ordered: a leaf or two of the key that the read did not touch.)
 */
export async function deleteSignInEventsBefore(
  db: Executor,
  before: Date,
  limit: number,
): Promise<{ due: number; deleted: number }> {
  const due = await sql<{ id: string }>`
    select old.id from sign_in_events old
    where old.created_at < ${before}
      and (old.outcome = 'failure' or exists (
        select 1 from sign_in_events newer
        where newer.user_id = old.user_id and newer.outcome = 'success'
          and (newer.created_at, newer.id) > (old.created_at, old.id)
      ))
    order by old.created_at
    limit ${limit}`.execute(db);
  if (due.rows.length === 0) return { due: 0, deleted: 0 };
  // Each is still one to delete: the member's latest success, which every older event of his
  // has after it, is never deleted (only an account's deletion takes it, with the rest).
  const result = await db
    .deleteFrom('signInEvents')
    .where(
      'id',
      'in',
      due.rows.map((event) => event.id),
    )
    .executeTakeFirst();
  return { due: due.rows.length, deleted: Number(result.numDeletedRows) };
}
