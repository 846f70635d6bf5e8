import { fileURLToPath } from 'node:url';

import fastifyCompress from '@fastify/compress';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';

import type { Config } from './config';
import { healthRoutes } from './modules/health/routes';
import { databasePlugin } from './plugins/database';
import { errorHandlerPlugin, sendError } from './plugins/error-handler';
import { webAppPlugin } from './plugins/web-app';

/** apps/web/dist, seen from apps/api/src/app.ts and from the bundle apps/api/dist/main.js alike. */
const BUILT_WEB_APP = fileURLToPath(new URL('../../web/dist/', import.meta.url));

export interface BuildAppOptions {
  /** Directory of the built web app; tests point it at a fixture. */
  webRoot?: string;
  /** Fastify's logger: false in tests, a pino configuration in the server. */
  logger?: boolean | { level: string };
}

/** Builds the whole server without listening: what `main.ts` starts and what tests drive. */
export async function buildApp(
  config: Config,
  options: BuildAppOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    requestTimeout: 30_000,
    bodyLimit: 256 * 1024,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  await app.register(errorHandlerPlugin);
  // Compresses API answers and the small files the build did not precompress; the .br/.gz
  // twins of the web app's assets pass through untouched (their Content-Encoding is set).
  await app.register(fastifyCompress);
  await app.register(databasePlugin, { config: config.database });

  await app.register(
    async function api(api) {
      api.setNotFoundHandler(function apiRouteNotFound(request, reply) {
        return sendError(
          reply,
          404,
          `Route ${request.method} ${request.url.split('?')[0]} not found`,
        );
      });
      await api.register(healthRoutes);
    },
    { prefix: '/api' },
  );

  await app.register(webAppPlugin, { root: options.webRoot ?? BUILT_WEB_APP });
  return app;
}
