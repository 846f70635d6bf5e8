// The member's passkeys in Account Settings: the list, renaming one and removing one.
import { type PasskeyItem, passkeyMessages } from '@kegel/contract';
import type { Kysely } from 'kysely';

import { isUuid } from '../../db/ids';
import type { Database } from '../../db/schema';
import { AppError } from '../../errors';
import { usersRepo } from '../users';
import { toPasskeyItem } from './passkey-items';
import * as repo from './repo';

export async function listPasskeys(db: Kysely<Database>, userId: string): Promise<PasskeyItem[]> {
  return (await repo.listPasskeysOfUser(db, userId)).map(toPasskeyItem);
}

/** Renames one of the member's passkeys; 404 for any other id. */
export async function renamePasskey(
  db: Kysely<Database>,
  userId: string,
  id: string,
  name: string,
): Promise<PasskeyItem> {
  const renamed = isUuid(id) ? await repo.renamePasskey(db, userId, id, name) : undefined;
  if (!renamed) throw new AppError(404, passkeyMessages.notFound);
  return toPasskeyItem(renamed);
}

/**
 * Removes one of the member's passkeys; 404 for any other id, 409 when it is his last way in (no
 * password, no Google or Apple identity, no other passkey). The account is locked while its ways
 * are counted: two removals at once cannot each leave the other passkey as the way in.
 */
export async function removePasskey(
  db: Kysely<Database>,
  userId: string,
  id: string,
): Promise<void> {
  if (!isUuid(id)) throw new AppError(404, passkeyMessages.notFound);
  await db.transaction().execute(async (transaction) => {
    await usersRepo.lockUser(transaction, userId);
    const ways = await repo.countWaysToSignIn(transaction, userId);
    const isOwn = (await repo.listPasskeysOfUser(transaction, userId)).some(
      (passkey) => passkey.id === id,
    );
    if (!ways || !isOwn) throw new AppError(404, passkeyMessages.notFound);
    if (!ways.hasPassword && ways.identities === 0 && ways.passkeys <= 1) {
      throw new AppError(409, passkeyMessages.lastWayToSignIn);
    }
    await repo.deletePasskey(transaction, userId, id);
  });
}
