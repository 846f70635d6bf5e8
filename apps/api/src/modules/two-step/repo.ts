// The SQL of two-step sign-in (migrations/0018): a member's authenticator, his recovery codes,
// and the sign-ins waiting for their code. No rules live here.
import { type Kysely, sql, type Transaction } from 'kysely';

import type { Database, SignInMethod } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

export function findAuthenticator(db: Executor, userId: string) {
  return db
    .selectFrom('twoStepAuthenticators')
    .select(['sealedSecret', 'confirmedAt', 'lastUsedStep'])
    .where('userId', '=', userId)
    .executeTakeFirst();
}

/** Whether the account signs in with a second step. */
export async function isTwoStepOn(db: Executor, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('twoStepAuthenticators')
    .select('userId')
    .where('userId', '=', userId)
    .where('confirmedAt', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Keeps a new, unconfirmed secret for the account, replacing one not yet confirmed; false (and
 * nothing changed) when the account's authenticator is confirmed already.
 */
export async function saveUnconfirmedAuthenticator(
  db: Executor,
  userId: string,
  sealedSecret: string,
): Promise<boolean> {
  const row = await db
    .insertInto('twoStepAuthenticators')
    .values({ userId, sealedSecret, confirmedAt: null, lastUsedStep: null })
    .onConflict((conflict) =>
      conflict
        .column('userId')
        .doUpdateSet({ sealedSecret, lastUsedStep: null, createdAt: sql<Date>`now()` })
        .where('twoStepAuthenticators.confirmedAt', 'is', null),
    )
    .returning('userId')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Takes a time step's code once: true only if no code of this step or a later one was taken
 * before (one statement, so two requests with the same code cannot both pass).
 */
export async function takeStep(
  db: Executor,
  userId: string,
  step: number,
  options: { confirmed: boolean },
): Promise<boolean> {
  const row = await db
    .updateTable('twoStepAuthenticators')
    .set({ lastUsedStep: step })
    .where('userId', '=', userId)
    .where('confirmedAt', options.confirmed ? 'is not' : 'is', null)
    .where((where) =>
      where.or([where('lastUsedStep', 'is', null), where('lastUsedStep', '<', step)]),
    )
    .returning('userId')
    .executeTakeFirst();
  return row !== undefined;
}

export async function markConfirmed(db: Executor, userId: string): Promise<boolean> {
  const row = await db
    .updateTable('twoStepAuthenticators')
    .set({ confirmedAt: sql<Date>`now()` })
    .where('userId', '=', userId)
    .where('confirmedAt', 'is', null)
    .returning('userId')
    .executeTakeFirst();
  return row !== undefined;
}

/** Turns two-step sign-in off: the authenticator, the recovery codes and waiting sign-ins go. */
export async function deleteTwoStep(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('twoStepAuthenticators').where('userId', '=', userId).execute();
  await db.deleteFrom('twoStepRecoveryCodes').where('userId', '=', userId).execute();
  await db.deleteFrom('twoStepChallenges').where('userId', '=', userId).execute();
}

/** The account's recovery codes become these (their hashes); the earlier ones stop working. */
export async function replaceRecoveryCodes(
  db: Executor,
  userId: string,
  codeHashes: string[],
): Promise<void> {
  await db.deleteFrom('twoStepRecoveryCodes').where('userId', '=', userId).execute();
  await db
    .insertInto('twoStepRecoveryCodes')
    .values(codeHashes.map((codeHash) => ({ userId, codeHash, usedAt: null })))
    .execute();
}

/** Uses a recovery code: true the first time only (one statement, so never twice at once). */
export async function useRecoveryCode(
  db: Executor,
  userId: string,
  codeHash: string,
): Promise<boolean> {
  const row = await db
    .updateTable('twoStepRecoveryCodes')
    .set({ usedAt: sql<Date>`now()` })
    .where('userId', '=', userId)
    .where('codeHash', '=', codeHash)
    .where('usedAt', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertChallenge(
  db: Executor,
  challenge: {
    userId: string;
    tokenHash: string;
    signInMethod: SignInMethod;
    credentialVersion: number;
    validSeconds: number;
  },
): Promise<void> {
  // The account's spent and expired challenges go as a new one comes: no job needed.
  await db
    .deleteFrom('twoStepChallenges')
    .where('userId', '=', challenge.userId)
    .where((where) =>
      where.or([where('consumedAt', 'is not', null), where('expiresAt', '<=', sql<Date>`now()`)]),
    )
    .execute();
  await db
    .insertInto('twoStepChallenges')
    .values({
      userId: challenge.userId,
      tokenHash: challenge.tokenHash,
      signInMethod: challenge.signInMethod,
      credentialVersion: challenge.credentialVersion,
      expiresAt: sql<Date>`now() + make_interval(secs => ${challenge.validSeconds})`,
      consumedAt: null,
    })
    .execute();
}

/** A sign-in still waiting for its code: not used, not expired. */
export function findOpenChallenge(db: Executor, tokenHash: string) {
  return db
    .selectFrom('twoStepChallenges')
    .select(['id', 'userId', 'signInMethod', 'credentialVersion'])
    .where('tokenHash', '=', tokenHash)
    .where('consumedAt', 'is', null)
    .where('expiresAt', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

/** Spends a waiting sign-in: true for the one request that gets it. */
export async function consumeChallenge(db: Executor, id: string): Promise<boolean> {
  const row = await db
    .updateTable('twoStepChallenges')
    .set({ consumedAt: sql<Date>`now()` })
    .where('id', '=', id)
    .where('consumedAt', 'is', null)
    .where('expiresAt', '>', sql<Date>`now()`)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Counts a wrong code against a waiting sign-in; at `limit` it is spent. */
export async function countWrongCode(db: Executor, id: string, limit: number): Promise<void> {
  await db
    .updateTable('twoStepChallenges')
    .set({
      wrongCodes: sql<number>`wrong_codes + 1`,
      consumedAt: sql<Date | null>`case when wrong_codes + 1 >= ${limit} then now() else consumed_at end`,
    })
    .where('id', '=', id)
    .execute();
}
