// The one-click unsubscribe (RFC 8058): a signed link turns a kind of mail off for the member it
// names, without a session. Done twice, it answers the same; a reminder still waiting in the
// outbox is withdrawn with it.
import { unsubscribeMessages } from '@kegel/contract';
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import { AppError } from '../../errors';
import { usersRepo } from '../users';
import { withdrawWaitingReminders } from './reminders';
import { readUnsubscribeToken } from './unsubscribe-token';

export async function unsubscribe(
  db: Kysely<Database>,
  unsubscribeKey: Buffer,
  token: string,
): Promise<void> {
  const named = readUnsubscribeToken(unsubscribeKey, token);
  if (!named) throw new AppError(400, unsubscribeMessages.invalidLink);
  await db.transaction().execute(async (transaction) => {
    const changed = await usersRepo.updatePreferences(transaction, named.userId, {
      expiryReminders: false,
    });
    if (!changed) throw new AppError(404, unsubscribeMessages.noAccount);
    await withdrawWaitingReminders(transaction, named.userId);
  });
}
