import type { TokenPair } from '@kegel/contract';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';

import { deriveKey } from '../../src/security/keys';
import { redisKeyName } from '../../src/security/rate-limiter';
import { post, postFrom } from '../support/accounts';
import { captureLog, LOG_LEVEL } from '../support/log-capture';
import { startTcpProxy, startSilentServer, unusedPort } from '../support/tcp-proxy';
import { startTestServer, TEST_TOKEN_SECRET, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { testEnv } from '../support/test-env';

const pglite = testDatabaseKinds[0]!;

/**
 * A generous bound on a call's answer while Redis is away: the limiter waits at most half a
 * second on it, and the machine running the tests is busy. Before, such calls hung 10-15 s.
 */
const PROMPT_MS = 3_000;

async function prompt(
  call: () => Promise<LightMyRequestResponse>,
  expectedStatus: number,
): Promise<LightMyRequestResponse> {
  const started = performance.now();
  const response = await call();
  expect(response.statusCode, response.body).toBe(expectedStatus);
  expect(performance.now() - started).toBeLessThan(PROMPT_MS);
  return response;
}

const REDIS_WARNING = /Redis is not answering/;
const REDIS_BACK = /Redis answers again/;

describe('rate limits while Redis cannot be reached', () => {
  const outages = [
    {
      name: 'nothing listens on its port',
      start: async () => ({ port: await unusedPort(), close: async () => {} }),
    },
    { name: 'it accepts connections and never answers', start: startSilentServer },
  ];

  it.each(outages)(
    'answers /auth calls as usual and promptly when $name, with one warning in the log',
    async ({ start }) => {
      const redis = await start();
      const log = captureLog();
      const server = await startTestServer(pglite, {
        logger: log.logger,
        env: { REDIS_URL: `redis://127.0.0.1:${redis.port}` },
      });
      const app: FastifyInstance = server.app;
      try {
        const email = uniqueEmail('redis-down');
        const password = 'correct horse';
        await prompt(() => post(app, '/auth/local/register/email', { email, password }), 201);
        const tokens = (
          await prompt(() => post(app, '/auth/local/login/email', { email, password }), 200)
        ).json<TokenPair>();
        await prompt(() => post(app, '/auth/refresh', { refreshToken: tokens.refreshToken }), 200);
        await prompt(() => post(app, '/auth/reset-password', { email }), 200);
        // The limits still hold, counted in this process: five wrong passwords, then a wait.
        const guess = () =>
          postFrom(app, '203.0.113.9', '/auth/local/login/email', { email, password: 'wrong' });
        for (let failure = 0; failure < 5; failure += 1) await prompt(guess, 401);
        await prompt(guess, 429);

        expect(log.find(LOG_LEVEL.warn, REDIS_WARNING)).toHaveLength(1);
        expect(log.lines.filter((line) => line.level >= LOG_LEVEL.error)).toEqual([]);
      } finally {
        await server.close();
        await redis.close();
      }
    },
  );
});

describe.runIf(testEnv.redisUrl)('rate limits when Redis goes away and comes back', () => {
  it('counts in this process while Redis is hung or gone, and in Redis again once it answers', async () => {
    const target = new URL(testEnv.redisUrl!);
    const proxy = await startTcpProxy({
      host: target.hostname,
      port: Number(target.port || 6379),
    });
    const direct = new Redis(testEnv.redisUrl!);
    const prefix = `test-outage-${Date.now()}`;
    const log = captureLog();
    const server = await startTestServer(pglite, {
      logger: log.logger,
      env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_KEY_PREFIX: prefix },
    });
    // Every /auth call counts against its client address in Redis (the auth-requests window),
    // under a name made from the address with the server's key.
    const keySecret = deriveKey(TEST_TOKEN_SECRET, 'rate-limit-keys');
    const countedInRedis = async (address: string) =>
      (await direct.exists(`${prefix}:rate:auth-requests:${redisKeyName(keySecret, address)}`)) ===
      1;
    const call = (address: string) =>
      prompt(
        () => postFrom(server.app, address, '/auth/reset-password', { email: uniqueEmail('x') }),
        200,
      );
    const untilCountedInRedis = (address: string) =>
      expect
        .poll(
          async () => {
            await call(address);
            return countedInRedis(address);
          },
          { timeout: 15_000, interval: 200 },
        )
        .toBe(true);
    try {
      await call('192.0.2.1');
      expect(await countedInRedis('192.0.2.1')).toBe(true);

      // Hung: connections open, no answer.
      proxy.pause();
      await call('192.0.2.2');
      await call('192.0.2.3');
      expect(log.find(LOG_LEVEL.warn, REDIS_WARNING)).toHaveLength(1);
      await proxy.restore();
      await untilCountedInRedis('192.0.2.4');
      expect(log.find(LOG_LEVEL.info, REDIS_BACK)).toHaveLength(1);
      // The call after the first failure never went to Redis: it was counted here.
      expect(await countedInRedis('192.0.2.3')).toBe(false);

      // Gone: connections end, new ones are refused.
      await proxy.cut('refuse');
      await call('192.0.2.5');
      await call('192.0.2.6');
      expect(log.find(LOG_LEVEL.warn, REDIS_WARNING)).toHaveLength(2);
      await proxy.restore();
      await untilCountedInRedis('192.0.2.7');
      expect(log.find(LOG_LEVEL.info, REDIS_BACK)).toHaveLength(2);
      expect(await countedInRedis('192.0.2.6')).toBe(false);
      expect(log.lines.filter((line) => line.level >= LOG_LEVEL.error)).toEqual([]);
    } finally {
      await server.close();
      await proxy.close();
      direct.disconnect();
    }
  });
});
