import { endpoints } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { serveEndpoint } from '../../http/serve-endpoint';
import { callerOf } from '../../plugins/authenticate';
import type { UsersService } from './service';

/** The signed-in member's own account. */
export const userRoutes: FastifyPluginAsyncZod<{ usersService: UsersService }> =
  async function userRoutes(app, { usersService }) {
    serveEndpoint(app, endpoints.readProfile, async function readProfile(request) {
      return usersService.readProfile(callerOf(request).userId);
    });
  };
