import { apiPaths, ErrorBodySchema, HealthSchema } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { sendError } from '../../plugins/error-handler';

/** `GET /api/health`: 200 while the database answers, 503 otherwise (for load balancers). */
export const healthRoutes: FastifyPluginAsyncZod = async function healthRoutes(app) {
  app.get(
    apiPaths.health,
    { schema: { response: { 200: HealthSchema, 503: ErrorBodySchema } } },
    async function reportHealth(_request, reply) {
      reply.header('cache-control', 'no-store');
      if (await app.database.isAnswering()) return { status: 'ok' as const };
      return sendError(reply, 503, 'The database is not answering');
    },
  );
};
