import { endpoints } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { serveEndpoint } from '../../http/serve-endpoint';
import { sendError } from '../../plugins/error-handler';

/** 200 while the database answers, 503 otherwise (for load balancers). */
export const healthRoutes: FastifyPluginAsyncZod = async function healthRoutes(app) {
  serveEndpoint(app, endpoints.health, async function reportHealth(_request, reply) {
    void reply.header('cache-control', 'no-store');
    if (await app.database.isAnswering()) return { status: 'ok' as const };
    return sendError(reply, 503, 'The database is not answering');
  });
};
