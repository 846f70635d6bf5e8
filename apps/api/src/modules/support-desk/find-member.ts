// The member an operator acts on, or the desk's 404.
import { supportDeskMessages } from '@kegel/contract';
import type { Kysely, Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import { AppError } from '../../errors';
import { usersRepo } from '../users';

export async function requireMember(
  db: Kysely<Database> | Transaction<Database>,
  memberId: string,
) {
  const member = await usersRepo.findUserById(db, memberId);
  if (!member) throw new AppError(404, supportDeskMessages.memberNotFound);
  return member;
}
