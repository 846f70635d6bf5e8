// The SQL of passkeys and their challenges. No rules live here.
import { type Kysely, sql, type Transaction } from 'kysely';

import type { Database, PasskeyChallengePurpose } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

/** The columns of a passkey that leave this file; its counter (bigint) read as a number. */
function passkeyColumns(db: Executor) {
  return db
    .selectFrom('passkeys')
    .select([
      'passkeys.id',
      'passkeys.userId',
      'passkeys.credentialId',
      'passkeys.publicKey',
      sql<number>`passkeys.counter::float8`.as('counter'),
      'passkeys.transports',
      'passkeys.deviceType',
      'passkeys.backedUp',
      'passkeys.name',
      'passkeys.createdAt',
      'passkeys.lastUsedAt',
    ]);
}

export type PasskeyRow = Awaited<ReturnType<typeof listPasskeysOfUser>>[number];

export function listPasskeysOfUser(db: Executor, userId: string) {
  return passkeyColumns(db)
    .where('passkeys.userId', '=', userId)
    .orderBy('passkeys.createdAt')
    .orderBy('passkeys.id')
    .execute();
}

/**
 * The passkey a sign-in names, with its account's credential version read in the same statement:
 * the session opens only at that version, so a reset or an undo landing meanwhile opens none.
 */
export function findPasskeyForSignIn(db: Executor, credentialId: string) {
  return passkeyColumns(db)
    .innerJoin('users', 'users.id', 'passkeys.userId')
    .select('users.credentialVersion')
    .where('passkeys.credentialId', '=', credentialId)
    .executeTakeFirst();
}

export function insertPasskey(
  db: Executor,
  passkey: {
    userId: string;
    credentialId: string;
    publicKey: string;
    counter: number;
    transports: string[];
    deviceType: 'singleDevice' | 'multiDevice';
    backedUp: boolean;
    name: string;
  },
) {
  return db
    .insertInto('passkeys')
    .values(passkey)
    .returning(['id', 'name', 'createdAt', 'lastUsedAt', 'deviceType'])
    .executeTakeFirstOrThrow();
}

/**
 * A sign-in with the passkey: its new counter and backup state, and when. Only over the counter
 * the signature was checked against: of two sign-ins with one counter value (a cloned
 * authenticator racing the original), one passes. False when the counter moved meanwhile.
 */
export async function recordPasskeySignIn(
  db: Executor,
  passkey: {
    id: string;
    checkedCounter: number;
    newCounter: number;
    deviceType: 'singleDevice' | 'multiDevice';
    backedUp: boolean;
  },
): Promise<boolean> {
  const updated = await db
    .updateTable('passkeys')
    .set({
      counter: passkey.newCounter,
      deviceType: passkey.deviceType,
      backedUp: passkey.backedUp,
      lastUsedAt: sql<Date>`now()`,
    })
    .where('id', '=', passkey.id)
    .where(sql<boolean>`counter = ${passkey.checkedCounter}::bigint`)
    .executeTakeFirst();
  return updated.numUpdatedRows > 0n;
}

export function renamePasskey(db: Executor, userId: string, id: string, name: string) {
  return db
    .updateTable('passkeys')
    .set({ name })
    .where('id', '=', id)
    .where('userId', '=', userId)
    .returning(['id', 'name', 'createdAt', 'lastUsedAt', 'deviceType'])
    .executeTakeFirst();
}

export async function deletePasskey(db: Executor, userId: string, id: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('passkeys')
    .where('id', '=', id)
    .where('userId', '=', userId)
    .executeTakeFirst();
  return deleted.numDeletedRows > 0n;
}

/** Removes the passkeys added to an account since `since` (an undo puts the account back). */
export async function deletePasskeysAddedSince(
  db: Executor,
  userId: string,
  since: Date,
): Promise<void> {
  await db
    .deleteFrom('passkeys')
    .where('userId', '=', userId)
    .where('createdAt', '>=', since)
    .execute();
}

/** Every way the account can sign in: a password, Google and Apple identities, passkeys. */
export async function countWaysToSignIn(db: Executor, userId: string) {
  const row = await db
    .selectFrom('users')
    .select((eb) => [
      eb('users.passwordHash', 'is not', null).as('hasPassword'),
      eb
        .selectFrom('userIdentities')
        .select(eb.fn.countAll<string>().as('count'))
        .whereRef('userIdentities.userId', '=', 'users.id')
        .as('identities'),
      eb
        .selectFrom('passkeys')
        .select(eb.fn.countAll<string>().as('count'))
        .whereRef('passkeys.userId', '=', 'users.id')
        .as('passkeys'),
    ])
    .where('users.id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    hasPassword: row.hasPassword,
    identities: Number(row.identities ?? 0),
    passkeys: Number(row.passkeys ?? 0),
  };
}

export async function insertChallenge(
  db: Executor,
  challenge: {
    challengeHash: string;
    purpose: PasskeyChallengePurpose;
    userId: string | null;
    sessionId: string | null;
    expiresAt: Date;
  },
): Promise<void> {
  await db.insertInto('passkeyChallenges').values(challenge).execute();
}

/** Forgets the challenges nobody answered in time. */
export async function deleteExpiredChallenges(db: Executor): Promise<void> {
  await db.deleteFrom('passkeyChallenges').where('expiresAt', '<', new Date()).execute();
}

/**
 * Uses a challenge up: true only for the one caller that deletes it, while it is unexpired and
 * bound to what it is used for (a registration's: the member and session it was issued to).
 */
export async function consumeChallenge(
  db: Executor,
  challenge: {
    challengeHash: string;
    purpose: PasskeyChallengePurpose;
    userId: string | null;
    sessionId: string | null;
  },
): Promise<boolean> {
  let query = db
    .deleteFrom('passkeyChallenges')
    .where('challengeHash', '=', challenge.challengeHash)
    .where('purpose', '=', challenge.purpose)
    .where('expiresAt', '>', new Date());
  query =
    challenge.userId === null
      ? query.where('userId', 'is', null)
      : query.where('userId', '=', challenge.userId);
  query =
    challenge.sessionId === null
      ? query.where('sessionId', 'is', null)
      : query.where('sessionId', '=', challenge.sessionId);
  const deleted = await query.executeTakeFirst();
  return deleted.numDeletedRows > 0n;
}
