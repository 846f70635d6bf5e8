// The SQL of the audit trail. Rows are only ever appended; the one update replaces the emails of
// a deleted account by a pseudonym (the database's trigger refuses any other change).
import { type Kysely, sql, type Transaction } from 'kysely';

import type { AuditEventsTable, Database } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

/** Any fixed number: the key of the lock that puts appends in a line. */
const APPEND_LOCK = 2_020_026;

export type AuditRowInsert = Omit<AuditEventsTable, 'sequence' | 'pseudonymisedAt' | 'id'> & {
  id: string;
};

/**
 * The hash of the last row, under a transaction-wide lock that every append takes first: two
 * appends at once would otherwise both chain to the same row. Held until the caller commits.
 */
export async function lockAndReadLastHash(
  transaction: Transaction<Database>,
): Promise<string | undefined> {
  await sql`select pg_advisory_xact_lock(${APPEND_LOCK})`.execute(transaction);
  const last = await transaction
    .selectFrom('auditEvents')
    .select('hash')
    .orderBy('sequence', 'desc')
    .limit(1)
    .executeTakeFirst();
  return last?.hash;
}

export async function insertAuditRow(
  transaction: Transaction<Database>,
  row: AuditRowInsert,
): Promise<{ sequence: string }> {
  return transaction
    .insertInto('auditEvents')
    .values(row)
    .returning('sequence')
    .executeTakeFirstOrThrow();
}

/** A page of the whole chain, in order, for the verification. */
export function listChainAfter(db: Executor, afterSequence: string | null, limit: number) {
  let query = db.selectFrom('auditEvents').selectAll().orderBy('sequence').limit(limit);
  if (afterSequence !== null) query = query.where('sequence', '>', afterSequence);
  return query.execute();
}

/** Replaces a deleted account's emails, as member and as operator, by its pseudonym. */
export async function pseudonymiseEmailsOf(
  transaction: Transaction<Database>,
  userId: string,
  pseudonym: string,
): Promise<void> {
  await transaction
    .updateTable('auditEvents')
    .set({ targetEmail: pseudonym, pseudonymisedAt: sql<Date>`now()` })
    .where('targetUserId', '=', userId)
    .execute();
  await transaction
    .updateTable('auditEvents')
    .set({ actorEmail: pseudonym, pseudonymisedAt: sql<Date>`now()` })
    .where('actorId', '=', userId)
    .execute();
}

/** Who a filter of the audit list names: an account id, or an email (exact, any case). */
export type AuditPartyFilter = { id: string } | { email: string };

export interface AuditListFilter {
  operator?: AuditPartyFilter;
  member?: AuditPartyFilter;
  action?: string;
  from?: Date;
  to?: Date;
  /** Rows before this sequence (the previous page's last). */
  beforeSequence?: string;
}

/**
 * A page of the audit trail, newest first. An email matches the rows that carry it (as they were
 * written, or the pseudonym that replaced it) and the rows of the account that has it now.
 */
export function listAuditRows(db: Executor, filter: AuditListFilter, limit: number) {
  let query = db.selectFrom('auditEvents').selectAll().orderBy('sequence', 'desc').limit(limit);
  if (filter.operator) {
    const operator = filter.operator;
    query = query.where((eb) =>
      'id' in operator
        ? eb('actorId', '=', operator.id)
        : eb.or([
            eb(sql<string>`lower(actor_email)`, '=', operator.email.toLowerCase()),
            eb(
              'actorId',
              'in',
              eb
                .selectFrom('users')
                .select('users.id')
                .where(sql<string>`lower(users.email)`, '=', operator.email.toLowerCase()),
            ),
          ]),
    );
  }
  if (filter.member) {
    const member = filter.member;
    query = query.where((eb) =>
      'id' in member
        ? eb('targetUserId', '=', member.id)
        : eb.or([
            eb(sql<string>`lower(target_email)`, '=', member.email.toLowerCase()),
            eb(
              'targetUserId',
              'in',
              eb
                .selectFrom('users')
                .select('users.id')
                .where(sql<string>`lower(users.email)`, '=', member.email.toLowerCase()),
            ),
          ]),
    );
  }
  if (filter.action) query = query.where('action', '=', filter.action);
  if (filter.from) query = query.where('occurredAt', '>=', filter.from);
  if (filter.to) query = query.where('occurredAt', '<=', filter.to);
  if (filter.beforeSequence) query = query.where('sequence', '<', filter.beforeSequence);
  return query.execute();
}
