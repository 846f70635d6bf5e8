// The member's own account as the web app shows it.
import type { Profile } from '@kegel/contract';
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import { AppError, SESSION_ENDED_MESSAGE } from '../../errors';
import * as repo from './repo';

export type UsersService = ReturnType<typeof createUsersService>;

export function createUsersService(deps: { db: Kysely<Database> }) {
  return {
    /** Who is signed in, and until when premium lasts (null: never bought). */
    async readProfile(userId: string): Promise<Profile> {
      const user = await repo.findUserById(deps.db, userId);
      // A live session whose account is gone (never deleted today, but never trusted either).
      if (!user) throw new AppError(401, SESSION_ENDED_MESSAGE);
      return {
        id: user.id,
        email: user.email,
        subscriptionEndDate: user.subscriptionEndDate?.toISOString() ?? null,
        hasPassword: user.passwordHash !== null,
      };
    },
  };
}
