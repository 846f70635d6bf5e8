import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { post, postFrom, register } from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { testEnv } from '../support/test-env';

const pglite = testDatabaseKinds[0]!;

describe.each(testDatabaseKinds)('rate limits on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const attempt = (email: string, password: string, from = '127.0.0.1') =>
    postFrom(server.app, from, '/auth/local/login/email', { email, password });

  it('answers 429 with Retry-After after five failures from one address, even with the right password', async () => {
    const email = uniqueEmail('limited');
    await register(server.app, email, 'correct horse');
    for (let failure = 0; failure < 5; failure += 1) {
      expect((await attempt(email, 'wrong horse', '203.0.113.5')).statusCode).toBe(401);
    }
    const blocked = await attempt(email, 'correct horse', '203.0.113.5');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({
      message: 'Too many failed sign-in attempts. Please try again later.',
    });
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Another account is not affected.
    const other = uniqueEmail('unaffected');
    await register(server.app, other, 'correct horse');
    expect((await attempt(other, 'correct horse', '203.0.113.5')).statusCode).toBe(200);
  });

  it("locks an account out of the addresses that failed, not out of the owner's", async () => {
    const email = uniqueEmail('not-locked-out');
    await register(server.app, email, 'correct horse');
    for (let failure = 0; failure < 6; failure += 1) {
      await attempt(email, 'wrong horse', '198.51.100.7');
    }
    expect((await attempt(email, 'correct horse', '198.51.100.7')).statusCode).toBe(429);
    expect((await attempt(email, 'correct horse', '192.0.2.1')).statusCode).toBe(200);
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

  it('lets many correct sign-ins to one account through at once (a family, a script)', async () => {
    const email = uniqueEmail('family');
    await register(server.app, email, 'correct horse');
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => attempt(email, 'correct horse')),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(10).fill(200));
  });

  it('slows guessing spread over many addresses, never the right password', async () => {
    const email = uniqueEmail('distributed');
    await register(server.app, email, 'correct horse');
    expect((await attempt(email, 'correct horse', '192.0.2.50')).statusCode).toBe(200);
    for (let address = 0; address < 10; address += 1) {
      for (let failure = 0; failure < 5; failure += 1) {
        expect((await attempt(email, 'wrong horse', `10.9.0.${address}`)).statusCode).toBe(401);
      }
    }
    // Past the account's ceiling, a wrong password from a new address is answered 429...
    const guess = await attempt(email, 'wrong horse', '10.9.1.1');
    expect(guess.statusCode).toBe(429);
    expect(Number(guess.headers['retry-after'])).toBeGreaterThan(0);
    // ...while the owner, on a network he has not used before, still gets in, and so he does
    // from where he signed in before.
    expect((await attempt(email, 'correct horse', '10.9.2.1')).statusCode).toBe(200);
    expect((await attempt(email, 'correct horse', '192.0.2.50')).statusCode).toBe(200);
  });

  it('sends the owner his reset mail on a new network while strangers guess at his account', async () => {
    const email = uniqueEmail('guessed-at');
    await register(server.app, email, 'correct horse');
    for (let address = 0; address < 12; address += 1) {
      for (let failure = 0; failure < 5; failure += 1) {
        await attempt(email, 'wrong horse', `10.8.0.${address}`);
      }
    }
    const asked = await postFrom(server.app, '10.8.1.1', '/auth/reset-password', { email });
    expect(asked.statusCode).toBe(200);
    await server.inbox.waitFor(
      (message) => message.to.includes(email) && message.subject.includes('Reset'),
    );
  });

  it('holds the per-account ceiling under parallel guesses from many addresses', async () => {
    const email = uniqueEmail('distributed-burst');
    await register(server.app, email, 'correct horse');
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, guess) =>
        attempt(email, 'wrong horse', `10.7.${Math.floor(guess / 5)}.1`),
      ),
    );
    const statuses = responses.map((response) => response.statusCode);
    // Exactly 50 wrong passwords were answered as such; the rest were slowed: 429, or 503
    // "busy" when this machine is so loaded that their turn did not come within the wait.
    expect(statuses.filter((status) => status === 401)).toHaveLength(50);
    expect(statuses.filter((status) => status === 429 || status === 503)).toHaveLength(10);
  });

  describe('reset mails', () => {
    const requestReset = (email: string, from: string) =>
      postFrom(server.app, from, '/auth/reset-password', { email });
    const resetMailsTo = (email: string) =>
      server.inbox
        .messages()
        .filter((message) => message.to.includes(email) && message.subject.includes('Reset'));
    // Mail leaves through the outbox: wait until the last one asked for has arrived.
    const settle = (email: string, count: number) =>
      expect.poll(() => resetMailsTo(email).length, { timeout: 5000 }).toBe(count);

    it("are capped per requesting address, and a stranger cannot use up the owner's", async () => {
      const email = uniqueEmail('reset-cap');
      await register(server.app, email, 'correct horse');
      for (let request = 0; request < 4; request += 1) await requestReset(email, '198.51.100.20');
      await settle(email, 3);
      await requestReset(email, '192.0.2.20');
      await settle(email, 4);
    });

    it("are capped per account beyond the owner's own network", async () => {
      const email = uniqueEmail('reset-account-cap');
      await register(server.app, email, 'correct horse');
      expect((await attempt(email, 'correct horse', '192.0.2.30')).statusCode).toBe(200);
      for (let address = 0; address < 4; address += 1) {
        for (let request = 0; request < 3; request += 1) {
          await requestReset(email, `10.8.0.${address}`);
        }
      }
      await settle(email, 10);
      await requestReset(email, '10.8.1.1');
      await requestReset(email, '192.0.2.30');
      await settle(email, 11);
      expect(resetMailsTo(email)).toHaveLength(11);
    });

    it('are capped per requesting address across accounts', async () => {
      const emails = Array.from({ length: 31 }, () => uniqueEmail('reset-spray'));
      for (const email of emails) await register(server.app, email, 'correct horse');
      for (const email of emails) await requestReset(email, '198.51.100.40');
      await settle(emails[29]!, 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(resetMailsTo(emails[30]!)).toHaveLength(0);
    });
  });
});

describe.each(testDatabaseKinds)('limits per client address on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, {
      env: { AUTH_REQUESTS_PER_MINUTE: '40', REGISTRATIONS_PER_ADDRESS_PER_HOUR: '10' },
    });
  });
  afterAll(() => server.close());

  it('allows ten new accounts per address and hour', async () => {
    for (let account = 0; account < 10; account += 1) {
      const created = await postFrom(server.app, '198.51.100.60', '/auth/local/register/email', {
        email: uniqueEmail('farm'),
        password: 'correct horse',
      });
      expect(created.statusCode).toBe(201);
    }
    const refused = await postFrom(server.app, '198.51.100.60', '/auth/local/register/email', {
      email: uniqueEmail('farm'),
      password: 'correct horse',
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({
      message: 'Too many new accounts from your network. Please try again later.',
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const elsewhere = await postFrom(server.app, '192.0.2.60', '/auth/local/register/email', {
      email: uniqueEmail('farm'),
      password: 'correct horse',
    });
    expect(elsewhere.statusCode).toBe(201);
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
    // A loaded machine can answer a Redis call in more than the 500 ms after which a process
    // counts in its own memory (an outage, as the server sees it): the counts would then split.
    const first = await startTestServer(pglite, { env, redisWaitMs: 10_000 });
    const second = await startTestServer(pglite, { env, redisWaitMs: 10_000 });
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
