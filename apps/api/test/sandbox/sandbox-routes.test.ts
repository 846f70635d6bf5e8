import { request as httpRequest } from 'node:http';

import { type AppStoreSandbox, startAppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { type IdentitySandbox, startIdentitySandbox } from '@kegel/sandbox/identity-sandbox';
import { startStripeSandbox, type StripeSandbox } from '@kegel/sandbox/stripe-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The edges of each sandbox's route table, as a client meets them: what a path or a method the
 * sandbox does not take answers, each in its provider's own shape. (What each route does is
 * tested with the sandbox's own test.)
 */
const NOWHERE = 'http://127.0.0.1:9/nowhere';

async function call(
  baseUrl: string,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; type: string | null; cache: string | null; text: string }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    ...(body === undefined ? {} : { body }),
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    cache: response.headers.get('cache-control'),
    text: await response.text(),
  };
}

describe('the Stripe sandbox, off its routes', () => {
  let sandbox: StripeSandbox;
  beforeAll(async () => {
    sandbox = await startStripeSandbox({ webhookUrl: NOWHERE, webhookSecret: 'whsec_routes' });
  });
  afterAll(() => sandbox.close());

  it("answers an API path or method it does not take with Stripe's 404", async () => {
    for (const [method, path] of [
      ['GET', '/v1/nothing'],
      ['POST', '/v1/charges/ch_1'],
      ['GET', '/v1/customers'],
      ['DELETE', '/v1/checkout/sessions/cs_1'],
    ] as const) {
      const answer = await call(sandbox.baseUrl, method, path);
      expect(answer.status).toBe(404);
      expect(answer.type).toBe('application/json');
      expect(JSON.parse(answer.text)).toEqual({
        error: {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${method}: ${path}). The sandbox speaks only what Kegel Coach uses.`,
        },
      });
    }
  });

  it('names a missing record in the path, whatever the method on a customer', async () => {
    for (const [method, path, kind] of [
      ['GET', '/v1/charges/ch_1', 'charge'],
      ['GET', '/v1/refunds/re_1', 'refund'],
      ['PUT', '/v1/customers/cus_1', 'customer'],
    ] as const) {
      const answer = await call(sandbox.baseUrl, method, path);
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.text)).toEqual({
        error: {
          type: 'invalid_request_error',
          code: 'resource_missing',
          message: `No such ${kind}: '${path.split('/').pop()}'`,
          param: 'id',
        },
      });
    }
  });

  it('answers a page it does not have in plain text, and the development page its own 404', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/checkout/cs_1'],
      ['POST', '/checkout/cs_1/pay'],
      ['GET', '/portal/not-a-token'],
      ['GET', '/developer'],
    ] as const) {
      expect(await call(sandbox.baseUrl, method, path)).toEqual({
        status: 404,
        type: 'text/plain',
        cache: null,
        text: 'Not found',
      });
    }
    for (const [method, path] of [
      ['POST', '/dev'],
      ['GET', '/dev/payments/pi_1/refund'],
      ['POST', '/dev/payments/pi_1/nothing'],
    ] as const) {
      const answer = await call(sandbox.baseUrl, method, path);
      expect(answer.status).toBe(404);
      expect(answer.type).toBe('text/html; charset=utf-8');
      expect(answer.text).toContain('<p>No such page.</p>');
    }
    const expired = await call(sandbox.baseUrl, 'GET', '/portal/token1');
    expect(expired.status).toBe(404);
    expect(expired.text).toContain('This portal link has expired.');
  });
});

describe('the identity sandbox, off its routes', () => {
  let sandbox: IdentitySandbox;
  beforeAll(async () => {
    sandbox = await startIdentitySandbox({
      google: { clientId: 'google-client', clientSecret: 'google-secret' },
      apple: { clientId: 'apple-client' },
      allowedOrigins: ['http://app.test'],
    });
  });
  afterAll(() => sandbox.close());

  it('answers what it does not take with a plain 404 never cached', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/google/token'],
      ['PUT', '/google/authorize'],
      ['DELETE', '/apple/auth/authorize'],
      ['GET', '/apple/auth/authorize/more'],
    ] as const) {
      expect(await call(sandbox.baseUrl, method, path)).toEqual({
        status: 404,
        type: 'text/plain',
        cache: 'no-store',
        text: 'Not found',
      });
    }
  });

  it('serves its discovery document and scripts whatever the method', async () => {
    const discovery = await call(
      sandbox.baseUrl,
      'POST',
      '/google/.well-known/openid-configuration',
    );
    expect(discovery.status).toBe(200);
    expect(JSON.parse(discovery.text)).toMatchObject({ issuer: sandbox.google.issuer });
    const script = await call(sandbox.baseUrl, 'HEAD', '/apple/appleid.auth.js');
    expect(script).toMatchObject({ status: 200, type: 'text/javascript; charset=utf-8' });
  });
});

describe('the App Store sandbox, off its routes', () => {
  let sandbox: AppStoreSandbox;
  beforeAll(async () => {
    sandbox = await startAppStoreSandbox({
      notificationUrl: NOWHERE,
      bundleId: 'coach.kegel.routes',
      products: [{ productId: 'monthly', name: 'Monthly', days: 30, priceMilliunits: 9990 }],
    });
  });
  afterAll(() => sandbox.close());

  it('answers outside the development page in plain text, and inside it its own 404', async () => {
    expect(await call(sandbox.baseUrl, 'GET', '/')).toEqual({
      status: 404,
      type: 'text/plain',
      cache: null,
      text: 'Not found',
    });
    for (const [method, path] of [
      ['POST', '/dev'],
      ['GET', '/dev/test'],
      ['GET', '/dev/subscriptions/1/renew'],
      ['POST', '/dev/subscriptions/abc/renew'],
      ['POST', '/dev/subscriptions/1/nothing'],
    ] as const) {
      const answer = await call(sandbox.baseUrl, method, path);
      expect(answer.status).toBe(404);
      expect(answer.type).toBe('text/html; charset=utf-8');
      expect(answer.text).toContain('<p>No such page.</p>');
    }
  });

  it('refuses a button of a subscription it does not have', async () => {
    const answer = await call(sandbox.baseUrl, 'POST', '/dev/subscriptions/123/renew');
    expect(answer.status).toBe(404);
    expect(answer.text).toContain('No subscription with originalTransactionId 123.');
  });
});

describe('every sandbox, asked under a name that is not this machine', () => {
  // A page of another site whose name its owner points at 127.0.0.1 (DNS rebinding) reaches a
  // sandbox over loopback, same-origin to the browser: it could press the sandbox's buttons
  // (pay, refund, ask Apple for a refund). Only the Host it sends tells.
  function getWithHost(baseUrl: string, host: string): Promise<number> {
    const url = new URL(baseUrl);
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        { hostname: url.hostname, port: url.port, path: '/', method: 'GET', headers: { host } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.end();
    });
  }

  let sandboxes: Array<{ name: string; baseUrl: string; close(): Promise<void> }>;
  beforeAll(async () => {
    const stripe = await startStripeSandbox({ webhookUrl: NOWHERE, webhookSecret: 'whsec_host' });
    const appStore = await startAppStoreSandbox({
      notificationUrl: NOWHERE,
      bundleId: 'app.kegelcoach.ios',
      products: [],
    });
    const identity = await startIdentitySandbox({
      google: { clientId: 'google-client', clientSecret: 'google-secret' },
      apple: { clientId: 'apple-client' },
      allowedOrigins: ['http://app.test'],
    });
    sandboxes = [
      { name: 'Stripe', baseUrl: stripe.baseUrl, close: () => stripe.close() },
      { name: 'App Store', baseUrl: appStore.baseUrl, close: () => appStore.close() },
      { name: 'identity', baseUrl: identity.baseUrl, close: () => identity.close() },
    ];
  });
  afterAll(async () => {
    await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
  });

  it('refuses it, and still answers localhost and loopback addresses', async () => {
    for (const { name, baseUrl } of sandboxes) {
      const port = new URL(baseUrl).port;
      for (const host of [
        `rebound.example:${port}`,
        'localhost.example',
        `127.0.0.1.nip.io:${port}`,
      ]) {
        expect(await getWithHost(baseUrl, host), `${name} as ${host}`).toBe(403);
      }
      for (const host of [
        `localhost:${port}`,
        `127.0.0.1:${port}`,
        `[::1]:${port}`,
        'app.localhost',
      ]) {
        expect(await getWithHost(baseUrl, host), `${name} as ${host}`).not.toBe(403);
      }
    }
  });
});
