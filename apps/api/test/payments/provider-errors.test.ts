import { createServer } from 'node:net';

import { startStripeSandbox, type StripeSandbox } from '@kegel/sandbox/stripe-sandbox';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { getProfile, post, registerAndLogin } from '../support/accounts';
import { captureLog, LOG_LEVEL } from '../support/log-capture';
import {
  chargeRefundedEvent,
  deliverStripeEvent,
  newPaymentIntentId,
} from '../support/stripe-events';
import {
  startTestServer,
  TEST_STRIPE_WEBHOOK_SECRET,
  type TestServer,
  uniqueEmail,
} from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const GENERIC_MESSAGE = 'Something went wrong on our side. Please try again.';

/**
 * Stripe's answers are Stripe's to us: a refused API key, a rate limit or an outage reaches the
 * caller as our own 502 or 503 with the generic message, never as Stripe's status (a 401 would
 * sign the member out) or text (which names keys and customer ids).
 */
describe.each(testDatabaseKinds)("Stripe's failures on $name", (kind) => {
  function expectOwnFailure(response: LightMyRequestResponse, statusCode: 502 | 503): void {
    expect(response.statusCode, response.body).toBe(statusCode);
    expect(response.json()).toEqual({
      statusCode,
      error: statusCode === 502 ? 'Bad Gateway' : 'Service Unavailable',
      message: GENERIC_MESSAGE,
    });
    expect(response.body).not.toMatch(/stripe|api key|sk_test|cus_/i);
  }

  describe('a key Stripe refuses', () => {
    let sandbox: StripeSandbox;
    let server: TestServer;
    const log = captureLog();
    beforeAll(async () => {
      sandbox = await startStripeSandbox({
        webhookSecret: TEST_STRIPE_WEBHOOK_SECRET,
        webhookUrl: 'http://127.0.0.1:1/unused',
        secretKey: 'sk_test_the_key_of_the_account',
      });
      server = await startTestServer(kind, {
        logger: log.logger,
        env: { STRIPE_SECRET_KEY: 'sk_test_a_revoked_key', STRIPE_API_URL: sandbox.baseUrl },
      });
    });
    afterAll(async () => {
      await server.close();
      await sandbox.close();
    });

    it('answers checkout, portal, session lookup and webhook with 502, and keeps the session', async () => {
      const email = uniqueEmail('refused-key');
      const tokens = await registerAndLogin(server.app, email, 'correct horse');

      const asGuest = await post(server.app, '/payments/stripe/new', {
        planId: '1-week',
        email: uniqueEmail('guest'),
      });
      expectOwnFailure(asGuest, 502);
      const asMember = await post(
        server.app,
        '/payments/stripe/new',
        { planId: '1-week', email },
        tokens.accessToken,
      );
      expectOwnFailure(asMember, 502);
      const portal = await server.app.inject({
        method: 'GET',
        url: '/api/payments/stripe/customer-portal',
        headers: { authorization: `Bearer ${tokens.accessToken}` },
      });
      expectOwnFailure(portal, 502);
      const lookup = await server.app.inject({
        method: 'GET',
        url: '/api/payments/stripe/session/cs_test_anything',
      });
      expectOwnFailure(lookup, 502);
      // A refund of a payment recorded nowhere here is looked up in Stripe: Stripe retries.
      const webhook = await deliverStripeEvent(
        server.app,
        chargeRefundedEvent({ paymentIntentId: newPaymentIntentId() }),
      );
      expectOwnFailure(webhook, 502);

      // None of it was about the member's session: it still works.
      expect((await getProfile(server.app, tokens.accessToken)).statusCode).toBe(200);
      // The operator reads what Stripe said.
      const logged = log.find(LOG_LEVEL.error, /Stripe failed: answered 502/);
      expect(logged.length).toBeGreaterThanOrEqual(5);
      expect(JSON.stringify(logged[0])).toContain('Invalid API Key provided');
    });
  });

  describe('a Stripe that does not answer', () => {
    let server: TestServer;
    beforeAll(async () => {
      // A port that was free a moment ago: nothing listens there.
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const { port } = probe.address() as { port: number };
      await new Promise((resolve) => probe.close(resolve));
      server = await startTestServer(kind, {
        env: { STRIPE_SECRET_KEY: 'sk_test_any', STRIPE_API_URL: `http://127.0.0.1:${port}` },
      });
    });
    afterAll(() => server.close());

    it('answers 503 with Retry-After: worth trying again in a moment', async () => {
      const checkout = await post(server.app, '/payments/stripe/new', {
        planId: '1-week',
        email: uniqueEmail('stripe-down'),
      });
      expectOwnFailure(checkout, 503);
      expect(Number(checkout.headers['retry-after'])).toBeGreaterThan(0);
      const lookup = await server.app.inject({
        method: 'GET',
        url: '/api/payments/stripe/session/cs_test_anything',
      });
      expectOwnFailure(lookup, 503);
    });
  });
});
