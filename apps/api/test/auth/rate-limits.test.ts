import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { post, register } from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { testEnv } from '../support/test-env';

const pglite = testDatabaseKinds[0]!;

describe('rate limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(pglite, {
      authRequestsPerAddress: { name: 'auth-requests', limit: 40, windowSeconds: 60 },
    });
  });
  afterAll(() => server.close());

  const attempt = (email: string, password: string) =>
    post(server.app, '/auth/local/login/email', { email, password });

  it('answers 429 with Retry-After after five failed sign-ins for one account, even with the right password', async () => {
    const email = uniqueEmail('limited');
    await register(server.app, email, 'correct horse');
    for (let failure = 0; failure < 5; failure += 1) {
      expect((await attempt(email, 'wrong horse')).statusCode).toBe(401);
    }
    const blocked = await attempt(email, 'correct horse');
    expect(blocked.statusCode).toBe(429);
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // Another account is not affected.
    const other = uniqueEmail('unaffected');
    await register(server.app, other, 'correct horse');
    expect((await attempt(other, 'correct horse')).statusCode).toBe(200);
  });

  it('counts failures for unknown addresses too, so a limit reveals nothing', async () => {
    const email = uniqueEmail('ghost');
    for (let failure = 0; failure < 5; failure += 1) await attempt(email, 'wrong horse');
    expect((await attempt(email, 'wrong horse')).statusCode).toBe(429);
  });

  it('holds the limit under a burst of parallel guesses', async () => {
    const email = uniqueEmail('burst');
    await register(server.app, email, 'correct horse');
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => attempt(email, 'wrong horse')),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(7);
  });

  it('answers a flood from one address with 429 and Retry-After', async () => {
    const responses = [];
    for (let request = 0; request < 65; request += 1) {
      responses.push(
        await post(server.app, '/auth/reset-password', { email: uniqueEmail('flood') }),
      );
    }
    const limited = responses.filter((response) => response.statusCode === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(Number(limited[0]!.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited[0]!.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
  });
});

describe.runIf(testEnv.redisUrl)('rate limits shared through Redis', () => {
  it('counts the failures of one account across two server processes', async () => {
    const prefix = `test-${Date.now()}`;
    const env = { REDIS_URL: testEnv.redisUrl!, REDIS_KEY_PREFIX: prefix };
    const first = await startTestServer(pglite, { env });
    const second = await startTestServer(pglite, { env });
    try {
      const email = uniqueEmail('shared');
      for (let failure = 0; failure < 3; failure += 1) {
        await post(first.app, '/auth/local/login/email', { email, password: 'wrong horse' });
      }
      for (let failure = 0; failure < 2; failure += 1) {
        await post(second.app, '/auth/local/login/email', { email, password: 'wrong horse' });
      }
      const blocked = await post(first.app, '/auth/local/login/email', {
        email,
        password: 'wrong horse',
      });
      expect(blocked.statusCode).toBe(429);
      const blockedElsewhere = await post(second.app, '/auth/local/login/email', {
        email,
        password: 'x',
      });
      expect(blockedElsewhere.statusCode).toBe(429);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
