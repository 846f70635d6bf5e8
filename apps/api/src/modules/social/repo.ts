// The SQL of Google and Apple identities. No rules live here.
import type { Kysely, Transaction } from 'kysely';

import type { Database } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

export type IdentityProviderName = 'google' | 'apple';

/**
 * The identity, with its account's credential version read in the same statement (one snapshot):
 * a sign-in opens its session only at that version, so an undo that unlinks the identity and
 * ends every session meanwhile leaves it nothing to open.
 */
export function findIdentity(db: Executor, provider: IdentityProviderName, subject: string) {
  return db
    .selectFrom('userIdentities')
    .innerJoin('users', 'users.id', 'userIdentities.userId')
    .select(['userIdentities.userId', 'userIdentities.email', 'users.credentialVersion'])
    .where('userIdentities.provider', '=', provider)
    .where('userIdentities.subject', '=', subject)
    .executeTakeFirst();
}

export async function insertIdentity(
  db: Executor,
  identity: {
    provider: IdentityProviderName;
    subject: string;
    userId: string;
    email: string | null;
  },
): Promise<void> {
  await db.insertInto('userIdentities').values(identity).execute();
}

/** A sign-in with a known identity: when, and the email it came with (if any). */
/** Unlinks the Google and Apple identities linked to an account since `since`. */
export async function deleteIdentitiesLinkedSince(
  db: Executor,
  userId: string,
  since: Date,
): Promise<void> {
  await db
    .deleteFrom('userIdentities')
    .where('userId', '=', userId)
    .where('createdAt', '>=', since)
    .execute();
}

export async function recordIdentitySignIn(
  db: Executor,
  provider: IdentityProviderName,
  subject: string,
  email: string | null,
): Promise<void> {
  await db
    .updateTable('userIdentities')
    .set((eb) => ({
      lastSignInAt: new Date(),
      email: email ?? eb.ref('email'),
    }))
    .where('provider', '=', provider)
    .where('subject', '=', subject)
    .execute();
}

/**
 * Records a nonce as used; false if it was used before. Expired entries are swept on the way
 * (a nonce past its expiry is refused before it gets here).
 */
export async function useNonceOnce(
  db: Executor,
  nonceHash: string,
  expiresAt: Date,
): Promise<boolean> {
  await db.deleteFrom('usedSignInNonces').where('expiresAt', '<', new Date()).execute();
  const inserted = await db
    .insertInto('usedSignInNonces')
    .values({ nonceHash, expiresAt })
    .onConflict((conflict) => conflict.column('nonceHash').doNothing())
    .returning('nonceHash')
    .executeTakeFirst();
  return inserted !== undefined;
}
