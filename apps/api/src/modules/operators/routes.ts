import { endpoints } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import { serveEndpoint } from '../../http/serve-endpoint';
import { callerOf } from '../../plugins/authenticate';
import { operatorStatus } from './desk-access';

/** `GET /users/operator`: whether the caller may use the support desk now, and why not. */
export const operatorStatusRoutes: FastifyPluginAsyncZod<{ db: Kysely<Database> }> =
  async function operatorStatusRoutes(app, { db }) {
    serveEndpoint(app, endpoints.operatorStatus, async function getOperatorStatus(request, reply) {
      void reply.header('cache-control', 'no-store');
      const { userId, sessionId } = callerOf(request);
      return operatorStatus(db, { userId, sessionId });
    });
  };
