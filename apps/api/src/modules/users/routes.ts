import { apiPaths, ProfileSchema } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { callerOf } from '../../plugins/authenticate';
import type { UsersService } from './service';

/** `GET /users/profile`: who is signed in, and until when premium lasts. */
export const userRoutes: FastifyPluginAsyncZod<{ usersService: UsersService }> =
  async function userRoutes(app, { usersService }) {
    app.get(
      apiPaths.profile,
      { preHandler: app.authenticate, schema: { response: { 200: ProfileSchema } } },
      async function readProfile(request) {
        return usersService.readProfile(callerOf(request).userId);
      },
    );
  };
