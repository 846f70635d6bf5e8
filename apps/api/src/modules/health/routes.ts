import { endpoints } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { serveEndpoint } from '../../http/serve-endpoint';
import { sendError } from '../../plugins/error-handler';

/** How long readiness waits for each dependency; a load balancer's check times out soon after. */
const READINESS_TIMEOUT_MS = 2_000;

/**
 * Liveness and readiness, kept apart on purpose. `/health` says only that this process answers:
 * an orchestrator that restarts processes on a failed liveness check must not restart every one
 * of them because the database is down, which no restart fixes. `/ready` says whether this process
 * can serve calls now (database, and Redis when configured): a load balancer sends traffic only to
 * processes that are ready, and takes them back when they are again. A process told to stop is
 * not ready either, for the drain period before it stops taking connections.
 */
export const healthRoutes: FastifyPluginAsyncZod = async function healthRoutes(app) {
  serveEndpoint(app, endpoints.health, async function reportLiveness(_request, reply) {
    void reply.header('cache-control', 'no-store');
    return { status: 'ok' as const };
  });

  serveEndpoint(app, endpoints.ready, async function reportReadiness(_request, reply) {
    void reply.header('cache-control', 'no-store');
    // Told to stop: the balancer takes this process out while it still serves (main.ts).
    if (app.shutdown.hasBegun) return sendError(reply, 503, 'The server is shutting down');
    const [isDatabaseAnswering, isRedisAnswering] = await Promise.all([
      app.database.isAnswering(READINESS_TIMEOUT_MS),
      app.rateLimiter.isAnswering(READINESS_TIMEOUT_MS),
    ]);
    const silent = [
      ...(isDatabaseAnswering ? [] : ['The database']),
      ...(isRedisAnswering ? [] : ['Redis']),
    ];
    if (silent.length === 0) return { status: 'ok' as const };
    return sendError(
      reply,
      503,
      `${silent.join(' and ')} ${silent.length > 1 ? 'are' : 'is'} not answering`,
    );
  });
};
