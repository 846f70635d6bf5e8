import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { postFrom, registerAndLogin } from '../support/accounts';
import { buildTestApp, startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { type TestDatabase, testDatabaseKinds } from '../support/test-databases';

/**
 * Each checkout start is a call to Stripe's API: without a limit, anyone could make thousands
 * in a minute on our account. A real buyer retries a few times; the defaults leave room for that,
 * and for a household or an office behind one address.
 */
describe('checkout starts are limited', () => {
  const pglite = testDatabaseKinds[0]!;
  let database: TestDatabase;
  let app: FastifyInstance;

  beforeAll(async () => {
    database = await pglite.create();
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  function startCheckout(address: string, email: string): Promise<LightMyRequestResponse> {
    return postFrom(app, address, '/payments/stripe/new', { planId: '1-week', email });
  }

  it('per client address: 20 an hour, then 429 with Retry-After; other addresses go on', async () => {
    for (let attempt = 1; attempt <= 20; attempt += 1) {
      const response = await startCheckout('198.51.100.7', uniqueEmail('retrying'));
      expect(response.statusCode, `attempt ${attempt}: ${response.body}`).toBe(200);
    }
    const refused = await startCheckout('198.51.100.7', uniqueEmail('retrying'));
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: 'Too many payment attempts from your network. Please try again later.',
    });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);

    expect((await startCheckout('198.51.100.8', uniqueEmail('neighbour'))).statusCode).toBe(200);
  });

  it('per email: 30 an hour from anywhere, then 429; other emails go on', async () => {
    const email = uniqueEmail('popular');
    for (let attempt = 1; attempt <= 30; attempt += 1) {
      // A different address each time: the per-address limit is not what stops them.
      const response = await startCheckout(`203.0.113.${attempt}`, email);
      expect(response.statusCode, `attempt ${attempt}: ${response.body}`).toBe(200);
    }
    const refused = await startCheckout('203.0.113.100', email.toUpperCase());
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({
      message: 'Too many payment attempts for this email. Please try again later.',
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

    expect((await startCheckout('203.0.113.100', uniqueEmail('other'))).statusCode).toBe(200);
  });

  it('takes other limits from CHECKOUTS_PER_ADDRESS_PER_HOUR and CHECKOUTS_PER_EMAIL_PER_HOUR', async () => {
    // A database of its own: an embedded one serves one server at a time.
    const strictDatabase = await pglite.create();
    const strict = await buildTestApp(strictDatabase, {
      env: { CHECKOUTS_PER_ADDRESS_PER_HOUR: '1', CHECKOUTS_PER_EMAIL_PER_HOUR: '1' },
    });
    try {
      const email = uniqueEmail('strict');
      const first = await postFrom(strict, '192.0.2.1', '/payments/stripe/new', {
        planId: '1-week',
        email,
      });
      expect(first.statusCode).toBe(200);
      const sameAddress = await postFrom(strict, '192.0.2.1', '/payments/stripe/new', {
        planId: '1-week',
        email: uniqueEmail('strict'),
      });
      expect(sameAddress.statusCode).toBe(429);
      const sameEmail = await postFrom(strict, '192.0.2.2', '/payments/stripe/new', {
        planId: '1-week',
        email,
      });
      expect(sameEmail.statusCode).toBe(429);
    } finally {
      await strict.close();
      await strictDatabase.drop();
    }
  });
});

/**
 * The budget per email is the buyer's as well as the strangers': strangers starting checkouts for
 * someone's email share one budget, and the member signed in to that email's account has his
 * own, which they cannot touch. Either is bounded, so one email never causes more than both.
 * Looking a checkout up (`/purchase/complete`) is a Stripe call too, limited per address.
 */
describe.each(testDatabaseKinds)("the buyer's checkouts and the lookups on $name", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    // The shipped budgets: 20 checkouts per address, 30 per email, 100 lookups per address.
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  function startCheckout(
    address: string,
    email: string,
    accessToken?: string,
  ): Promise<LightMyRequestResponse> {
    return server.app.inject({
      method: 'POST',
      url: '/api/payments/stripe/new',
      payload: { planId: '1-week', email },
      remoteAddress: address,
      headers: accessToken ? { authorization: `Bearer ${accessToken}` } : {},
    });
  }

  it("lets strangers use up only their own budget for an email, never the signed-in buyer's", async () => {
    const email = uniqueEmail('wanted');
    const buyer = await registerAndLogin(server.app, email, 'correct horse');
    // Strangers on two addresses, one of them signed in to an account of his own.
    const stranger = await registerAndLogin(server.app, uniqueEmail('stranger'), 'correct horse');
    for (let attempt = 1; attempt <= 30; attempt += 1) {
      const response =
        attempt % 2 === 0
          ? await startCheckout('203.0.113.41', email)
          : await startCheckout('203.0.113.42', email, stranger.accessToken);
      expect(response.statusCode, `attempt ${attempt}: ${response.body}`).toBe(200);
    }
    const refused = await startCheckout('203.0.113.43', email.toUpperCase());
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({
      message: 'Too many payment attempts for this email. Please try again later.',
    });
    expect((await startCheckout('203.0.113.42', email, stranger.accessToken)).statusCode).toBe(429);

    // The buyer, signed in, buys from his own network as if no stranger had tried.
    const own = await startCheckout('198.51.100.60', email, buyer.accessToken);
    expect(own.statusCode, own.body).toBe(200);
    // So he does without signing in, from the network he signs in from (registerAndLogin's).
    const fromHome = await startCheckout('127.0.0.1', email);
    expect(fromHome.statusCode, fromHome.body).toBe(200);
  });

  it("bounds the signed-in buyer's own checkouts too: 30 an hour, then 429", async () => {
    const email = uniqueEmail('eager');
    const buyer = await registerAndLogin(server.app, email, 'correct horse');
    for (let attempt = 1; attempt <= 30; attempt += 1) {
      // Two networks (home and phone): the per-address budget is not what stops him.
      const address = attempt <= 15 ? '198.51.100.61' : '198.51.100.62';
      const response = await startCheckout(address, email, buyer.accessToken);
      expect(response.statusCode, `attempt ${attempt}: ${response.body}`).toBe(200);
    }
    const refused = await startCheckout('198.51.100.63', email, buyer.accessToken);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({
      message: 'Too many payment attempts for this email. Please try again later.',
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Strangers have their own budget, untouched by his.
    expect((await startCheckout('203.0.113.44', email)).statusCode).toBe(200);
  });

  it('limits session lookups per client address: 100 an hour, then 429 with Retry-After', async () => {
    const lookUp = (address: string) =>
      server.app.inject({
        method: 'GET',
        url: '/api/payments/stripe/session/cs_test_unknown',
        remoteAddress: address,
      });
    for (let attempt = 1; attempt <= 100; attempt += 1) {
      const response = await lookUp('198.51.100.70');
      expect(response.statusCode, `attempt ${attempt}: ${response.body}`).toBe(404);
    }
    const refused = await lookUp('198.51.100.70');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: 'Too many payment lookups from your network. Please try again later.',
    });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect((await lookUp('198.51.100.71')).statusCode).toBe(404);
  });
});
