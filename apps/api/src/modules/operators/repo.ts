// The SQL of operators: their roles (written only by `npm run operator`) and what the support
// desk checks on every call.
import { type Kysely, sql, type Transaction } from 'kysely';

import type { Database, OperatorRole } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

/**
 * What the desk needs to know of a signed-in caller, in one query: his role, when his session
 * last proved a second factor, and whether he has one at all.
 */
export function findDeskAccess(db: Executor, session: { userId: string; sessionId: string }) {
  return db
    .selectFrom('authSessions as s')
    .leftJoin('operators as o', 'o.userId', 's.userId')
    .select([
      'o.role',
      'o.grantedAt',
      's.secondFactorAt',
      sql<Date | null>`greatest(
        (select max(t.confirmed_at) from two_step_authenticators t where t.user_id = s.user_id),
        (select max(p.created_at) from passkeys p where p.user_id = s.user_id)
      )`.as('newestFactorAt'),
      sql<boolean>`exists (select 1 from two_step_authenticators t
        where t.user_id = s.user_id and t.confirmed_at is not null)`.as('hasTwoStep'),
      sql<boolean>`exists (select 1 from passkeys p where p.user_id = s.user_id)`.as('hasPasskey'),
    ])
    .where('s.id', '=', session.sessionId)
    .where('s.userId', '=', session.userId)
    .executeTakeFirst();
}

export async function findRole(db: Executor, userId: string): Promise<OperatorRole | null> {
  const row = await db
    .selectFrom('operators')
    .select('role')
    .where('userId', '=', userId)
    .executeTakeFirst();
  return row?.role ?? null;
}

/** Sets the role; answers the one before (null: none). */
export async function setRole(
  transaction: Transaction<Database>,
  userId: string,
  role: OperatorRole,
): Promise<OperatorRole | null> {
  const before = await transaction
    .selectFrom('operators')
    .select('role')
    .where('userId', '=', userId)
    .forUpdate()
    .executeTakeFirst();
  await transaction
    .insertInto('operators')
    .values({ userId, role })
    // A change of role keeps the time it was first granted: the desk's wait for a second factor
    // added since then (desk-access.ts) must not be reset by granting again.
    .onConflict((conflict) => conflict.column('userId').doUpdateSet({ role }))
    .execute();
  return before?.role ?? null;
}

/** Takes the role away; answers the one it was (null: there was none). */
export async function removeRole(
  transaction: Transaction<Database>,
  userId: string,
): Promise<OperatorRole | null> {
  const row = await transaction
    .deleteFrom('operators')
    .where('userId', '=', userId)
    .returning('role')
    .executeTakeFirst();
  return row?.role ?? null;
}

export function listOperators(db: Executor) {
  return db
    .selectFrom('operators')
    .innerJoin('users', 'users.id', 'operators.userId')
    .select(['users.email', 'operators.role', 'operators.grantedAt'])
    .orderBy('users.email')
    .execute();
}
