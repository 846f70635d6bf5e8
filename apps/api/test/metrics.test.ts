import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { postFrom } from './support/accounts';
import { unusedPort } from './support/tcp-proxy';
import { buildTestApp, uniqueEmail } from './support/test-app';
import { type TestDatabase, testDatabaseKinds } from './support/test-databases';

const METRICS_TOKEN = 'metrics-token-for-the-integration-tests-0123456789';

/** The value of one sample line (`name{labels} value`) of the exposition text, if present. */
function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present: Record<string, string> = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key, value]),
    );
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) {
      return Number(match[3]);
    }
  }
  return undefined;
}

describe.each(testDatabaseKinds)('GET /metrics on $name', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;

  beforeAll(async () => {
    database = await kind.create();
    app = await buildTestApp(database, {
      env: {
        // Mail cannot leave: what is written stays in the backlog the metrics report.
        SMTP_URL: `smtp://127.0.0.1:${await unusedPort()}`,
        REGISTRATIONS_PER_ADDRESS_PER_HOUR: '1',
      },
    });
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  const scrape = (options: { remoteAddress?: string; headers?: Record<string, string> } = {}) =>
    app.inject({ method: 'GET', url: '/metrics', ...options });

  it('reports request durations by route, rate-limit refusals, webhooks, hashing and the outbox', async () => {
    await app.inject({ method: 'GET', url: '/api/health' });
    await app.inject({ method: 'GET', url: '/api/no-such-call' });
    const address = '198.51.100.23';
    const first = await postFrom(app, address, '/auth/local/register/email', {
      email: uniqueEmail('metrics'),
      password: 'a long enough password',
    });
    expect(first.statusCode).toBe(201);
    const refused = await postFrom(app, address, '/auth/local/register/email', {
      email: uniqueEmail('metrics'),
      password: 'a long enough password',
    });
    expect(refused.statusCode).toBe(429);
    const unsigned = await app.inject({
      method: 'POST',
      url: '/api/payments/stripe/webhook',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(unsigned.statusCode).toBe(400);
    await app.database.db
      .insertInto('outboxEmails')
      .values({
        recipient: 'backlog@example.com',
        template: 'test',
        encryptedPayload: null,
        createdAt: sql<Date>`now() - interval '90 seconds'`,
        nextAttemptAt: sql<Date>`now() + interval '1 hour'`,
      })
      .execute();

    const response = await scrape();
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(response.headers['cache-control']).toBe('no-store');
    const text = response.body;

    expect(
      sample(text, 'http_request_duration_seconds_count', {
        method: 'GET',
        route: '/api/health',
        status_code: '200',
      }),
    ).toBe(1);
    expect(
      sample(text, 'http_request_duration_seconds_count', {
        route: 'unmatched',
        status_code: '404',
      }),
    ).toBe(1);
    expect(
      sample(text, 'kegel_rate_limit_refusals_total', { route: '/api/auth/local/register/email' }),
    ).toBe(1);
    expect(
      sample(text, 'kegel_stripe_webhook_events_total', { outcome: 'invalid-signature' }),
    ).toBe(1);
    expect(sample(text, 'kegel_password_hashes_waiting')).toBe(0);
    expect(sample(text, 'kegel_password_hashes_running')).toBe(0);
    expect(sample(text, 'kegel_password_sign_ins_waiting')).toBe(0);
    // The registration may have written a mail too; the row above is the oldest.
    expect(sample(text, 'kegel_outbox_backlog')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'kegel_outbox_oldest_age_seconds')).toBeGreaterThanOrEqual(90);
    expect(sample(text, 'kegel_outbox_oldest_age_seconds')).toBeLessThan(600);
    // The process's own figures come along (prom-client's defaults).
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('is refused to a client elsewhere, and to one that came through a proxy on this machine', async () => {
    const fromElsewhere = await scrape({ remoteAddress: '203.0.113.9' });
    expect(fromElsewhere.statusCode).toBe(403);
    expect(fromElsewhere.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message:
        'Metrics are served only to this machine; set METRICS_TOKEN to scrape from elsewhere',
    });
    // Whatever the header a proxy on this machine adds to say whom it forwards.
    const proxiedHeaders: Array<Record<string, string>> = [
      { 'x-forwarded-for': '127.0.0.1' },
      { forwarded: 'for=127.0.0.1' },
      { 'x-real-ip': '127.0.0.1' },
    ];
    for (const headers of proxiedHeaders) {
      const throughProxy = await scrape({ headers });
      expect(throughProxy.statusCode, JSON.stringify(headers)).toBe(403);
    }
    expect((await scrape({ remoteAddress: '::1' })).statusCode).toBe(200);
  });

  it('is not part of the API document', async () => {
    const document = await app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(Object.keys(document.json<{ paths: object }>().paths)).not.toContain('/metrics');
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const kind = testDatabaseKinds[0]!;
  let database: TestDatabase;
  let app: FastifyInstance;

  beforeAll(async () => {
    database = await kind.create();
    app = await buildTestApp(database, { env: { METRICS_TOKEN } });
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  it('opens to a scraper anywhere that presents the token, and to nobody else there', async () => {
    const remoteAddress = '203.0.113.9';
    const granted = await app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress,
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(granted.statusCode).toBe(200);
    expect(granted.body).toContain('# TYPE http_request_duration_seconds histogram');

    for (const headers of [{}, { authorization: `Bearer ${METRICS_TOKEN}x` }]) {
      const refused = await app.inject({ method: 'GET', url: '/metrics', remoteAddress, headers });
      expect(refused.statusCode).toBe(401);
      expect(refused.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(refused.json()).toMatchObject({
        message: 'Metrics need the METRICS_TOKEN bearer token',
      });
    }
    // Loopback, straight to the process, still needs no token; through a proxy there, it does.
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
    const throughProxy = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { 'x-real-ip': '203.0.113.9' },
    });
    expect(throughProxy.statusCode).toBe(401);
  });
});
