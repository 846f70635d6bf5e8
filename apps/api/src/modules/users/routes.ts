import { apiPaths, ProfileSchema } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import { AppError, SESSION_ENDED_MESSAGE } from '../../errors';
import { callerOf } from '../../plugins/authenticate';
import { findUserById } from '../auth/repo';

/** `GET /users/profile` (spec §7): who is signed in, and until when premium lasts. */
export const userRoutes: FastifyPluginAsyncZod<{ db: Kysely<Database> }> =
  async function userRoutes(app, { db }) {
    app.get(
      apiPaths.profile,
      { preHandler: app.authenticate, schema: { response: { 200: ProfileSchema } } },
      async function readProfile(request) {
        const user = await findUserById(db, callerOf(request).userId);
        if (!user) throw new AppError(401, SESSION_ENDED_MESSAGE);
        return {
          id: user.id,
          email: user.email,
          subscriptionEndDate: user.subscriptionEndDate?.toISOString() ?? null,
          hasPassword: user.passwordHash !== null,
        };
      },
    );
  };
