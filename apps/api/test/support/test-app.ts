import type { FastifyInstance } from 'fastify';

import { buildApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import type { TestDatabase } from './test-databases';

/** A fixed secret, so tests never write generated secrets and runs are reproducible. */
export const TEST_TOKEN_SECRET = 'test-token-secret-that-is-long-enough-0123456789';

export function testConfig(database: TestDatabase, env: Record<string, string> = {}) {
  return loadConfig({
    NODE_ENV: 'test',
    TOKEN_SECRET: TEST_TOKEN_SECRET,
    PUBLIC_URL: 'http://localhost:3000',
    ...database.env,
    ...env,
  });
}

/** The whole server, built as main.ts builds it but not listening: drive it with `inject`. */
export async function buildTestApp(
  database: TestDatabase,
  options: { webRoot?: string; env?: Record<string, string> } = {},
): Promise<FastifyInstance> {
  const app = await buildApp(testConfig(database, options.env), {
    logger: false,
    webRoot: options.webRoot ?? '/nonexistent-web-root',
  });
  await app.ready();
  return app;
}
