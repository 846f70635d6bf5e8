import { randomBytes } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { isRealDate } from '../../src/dev-clock/shifted-date';
import { getProfile, post, registerAndLogin } from '../support/accounts';
import { payOnSandboxPage } from '../support/stripe-events';
import { buildTestApp, startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const HOUR = 60 * 60;
const DAY = 24 * HOUR;
const DAY_MS = DAY * 1000;

/**
 * The development clock: `POST /dev/clock` moves the server's time for JavaScript and SQL alike,
 * and with it premium, sessions, tokens and the sandboxes (docs/testing.md, The development clock).
 */
describe.each(testDatabaseKinds)('the development clock on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
    // The sandboxes deliver their webhooks and notifications back over HTTP.
    await server.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await server.close();
    // Closing the server puts the real clock back for whatever runs next in this process.
    expect(isRealDate()).toBe(true);
  });

  const advance = (seconds: number, remoteAddress = '127.0.0.1') =>
    server.app.inject({
      method: 'POST',
      url: '/dev/clock',
      payload: { advanceSeconds: seconds },
      remoteAddress,
    });

  async function serverNow(): Promise<number> {
    const response = await server.app.inject({ method: 'GET', url: '/dev/clock' });
    expect(response.statusCode, response.body).toBe(200);
    return Date.parse(response.json<{ now: string }>().now);
  }

  async function sqlNow(): Promise<number> {
    const { rows } = await sql<{ now: Date }>`select now() as now`.execute(server.app.database.db);
    return rows[0]!.now.getTime();
  }

  it("answers GET /dev/clock with the server's now, which SQL's now() agrees with, and moves both", async () => {
    const before = await serverNow();
    expect(Math.abs(before - Date.now())).toBeLessThan(60_000);
    const moved = await advance(2 * HOUR);
    expect(moved.statusCode, moved.body).toBe(200);
    const after = Date.parse(moved.json<{ now: string }>().now);
    expect(after - before).toBeGreaterThanOrEqual(2 * HOUR * 1000);
    expect(after - before).toBeLessThan(2 * HOUR * 1000 + 60_000);
    expect(Math.abs((await sqlNow()) - after)).toBeLessThan(60_000);
    // Every date is still a Date.
    expect(new Date()).toBeInstanceOf(Date);
    expect(new Date(0).toISOString()).toBe('1970-01-01T00:00:00.000Z');
    expect(typeof Date()).toBe('string');
    // The web app reads the move from a cookie on every answer, its pages' included.
    const health = await server.app.inject({ method: 'GET', url: '/api/health' });
    expect(health.headers['set-cookie']).toMatch(
      /^kegel_dev_clock_ms=\d{7,}; Path=\/; SameSite=Strict$/,
    );
  });

  it('refuses a clock moved backwards or by nothing', async () => {
    for (const advanceSeconds of [-60, 0, 'soon', 1.5]) {
      const response = await server.app.inject({
        method: 'POST',
        url: '/dev/clock',
        payload: { advanceSeconds },
      });
      expect(response.statusCode, String(advanceSeconds)).toBe(400);
    }
  });

  it('answers only this machine, and moves only from its own page or a script', async () => {
    for (const remoteAddress of ['192.168.1.23', '2001:db8::5']) {
      expect((await advance(60, remoteAddress)).statusCode).toBe(403);
      const read = await server.app.inject({ method: 'GET', url: '/dev/clock', remoteAddress });
      expect(read.statusCode).toBe(403);
    }
    const proxied = await server.app.inject({
      method: 'GET',
      url: '/dev/clock',
      headers: { 'x-forwarded-for': '198.51.100.9' },
    });
    expect(proxied.statusCode).toBe(403);
    const fromAnotherSite = await server.app.inject({
      method: 'POST',
      url: '/dev/clock',
      headers: { 'sec-fetch-site': 'cross-site' },
      payload: { advanceSeconds: 60 },
    });
    expect(fromAnotherSite.statusCode).toBe(403);
  });

  it('shows a page with buttons to a browser, whose form moves the clock', async () => {
    const page = await server.app.inject({
      method: 'GET',
      url: '/dev/clock',
      headers: { accept: 'text/html,application/xhtml+xml' },
    });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    for (const label of ['+1 hour', '+1 day', '+4 days', 'Custom'])
      expect(page.body).toContain(label);
    const before = await serverNow();
    const submitted = await server.app.inject({
      method: 'POST',
      url: '/dev/clock',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'same-origin',
      },
      payload: 'advanceHours=3',
    });
    expect(submitted.statusCode).toBe(303);
    expect(submitted.headers.location).toBe('/dev/clock');
    expect((await serverNow()) - before).toBeGreaterThanOrEqual(3 * HOUR * 1000);
    // The App Store sandbox's page leads to it (its periods pass with it).
    const port = (server.app.server.address() as { port: number }).port;
    const sandboxPage = await (await fetch(server.app.appStoreSandbox!.devUrl)).text();
    expect(sandboxPage).toContain(`href="http://127.0.0.1:${port}/dev/clock"`);
  });

  it('ends a 1-week pass 8 days later: premium inactive in the profile and the subscriptions list', async () => {
    const email = uniqueEmail('week-pass');
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    const checkout = await post(server.app, '/payments/stripe/new', { planId: '1-week', email });
    expect(checkout.statusCode, checkout.body).toBe(200);
    expect(
      (await payOnSandboxPage(checkout.json<{ paymentURL: string }>().paymentURL)).status,
    ).toBe(303);
    const endDate = async (accessToken: string) =>
      (await getProfile(server.app, accessToken)).json<{ subscriptionEndDate: string | null }>()
        .subscriptionEndDate;
    await expect.poll(() => endDate(tokens.accessToken)).not.toBeNull();
    const end = Date.parse((await endDate(tokens.accessToken))!);
    expect(end).toBeGreaterThan(await serverNow());

    expect((await advance(8 * DAY)).statusCode).toBe(200);
    // The access token is long past its 15 minutes: the refresh (30-day session) still works.
    const refreshed = await post(server.app, '/auth/refresh', {
      refreshToken: tokens.refreshToken,
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const { accessToken } = refreshed.json<{ accessToken: string }>();
    expect(Date.parse((await endDate(accessToken))!)).toBeLessThanOrEqual(await serverNow());
    const list = await server.app.inject({
      method: 'GET',
      url: '/api/users/subscriptions/personal',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    const purchases = list.json<{ data: Array<{ expiresAt: string }> }>().data;
    expect(purchases).toHaveLength(1);
    expect(Date.parse(purchases[0]!.expiresAt)).toBeLessThanOrEqual(await serverNow());
  });

  it('answers 401 to an access token past its lifetime, refreshes it, and refuses a session past its own', async () => {
    const tokens = await registerAndLogin(server.app, uniqueEmail('lifetimes'), 'correct horse');
    expect((await getProfile(server.app, tokens.accessToken)).statusCode).toBe(200);
    expect((await advance(16 * 60)).statusCode).toBe(200);
    expect((await getProfile(server.app, tokens.accessToken)).statusCode).toBe(401);
    const refreshed = await post(server.app, '/auth/refresh', {
      refreshToken: tokens.refreshToken,
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const fresh = refreshed.json<{ accessToken: string; refreshToken: string }>();
    expect((await getProfile(server.app, fresh.accessToken)).statusCode).toBe(200);

    expect((await advance(31 * DAY)).statusCode).toBe(200);
    const late = await post(server.app, '/auth/refresh', { refreshToken: fresh.refreshToken });
    expect(late.statusCode, late.body).toBe(401);
  });

  it('renews an App Store subscription with auto-renew as the clock passes its end, and expires one without', async () => {
    const sandbox = server.app.appStoreSandbox!;
    const subscribe = async (label: string) => {
      const tokens = await registerAndLogin(server.app, uniqueEmail(label), 'correct horse');
      const { id } = (await getProfile(server.app, tokens.accessToken)).json<{ id: string }>();
      const { originalTransactionId } = await sandbox.subscribe({
        productId: 'premium.week',
        appAccountToken: id,
      });
      return { tokens, originalTransactionId };
    };
    const endOf = async (accessToken: string) =>
      Date.parse(
        (await getProfile(server.app, accessToken)).json<{ subscriptionEndDate: string }>()
          .subscriptionEndDate,
      );
    const renewing = await subscribe('renewing');
    const lapsing = await subscribe('lapsing');
    await sandbox.setAutoRenew(lapsing.originalTransactionId, false);
    const firstEnd = await endOf(renewing.tokens.accessToken);
    expect(firstEnd).toBeGreaterThan(await serverNow());
    expect(await endOf(lapsing.tokens.accessToken)).toBeGreaterThan(await serverNow());

    // 15 days: two weekly renewals for one, an expiry for the other.
    expect((await advance(15 * DAY)).statusCode).toBe(200);
    const refresh = async (refreshToken: string) =>
      (await post(server.app, '/auth/refresh', { refreshToken })).json<{ accessToken: string }>()
        .accessToken;
    const renewedEnd = await endOf(await refresh(renewing.tokens.refreshToken));
    expect(renewedEnd - firstEnd).toBeGreaterThanOrEqual(14 * DAY_MS - 60_000);
    expect(renewedEnd).toBeGreaterThan(await serverNow());
    expect(sandbox.orderIdsOf(renewing.originalTransactionId)).toHaveLength(3);
    const lapsedEnd = await endOf(await refresh(lapsing.tokens.refreshToken));
    expect(lapsedEnd).toBeLessThanOrEqual(await serverNow());
    expect(sandbox.orderIdsOf(lapsing.originalTransactionId)).toHaveLength(1);
    const typesOf = async (originalTransactionId: string) => {
      const { rows } = await sql<{ notificationType: string; appliedAt: Date | null }>`
        select notification_type, applied_at from app_store_notifications
        where original_transaction_id = ${originalTransactionId}
        order by signed_at`.execute(server.app.database.db);
      // Delivered and applied, each.
      expect(rows.every((row) => row.appliedAt !== null)).toBe(true);
      return rows.map((row) => row.notificationType);
    };
    expect(await typesOf(renewing.originalTransactionId)).toEqual([
      'SUBSCRIBED',
      'DID_RENEW',
      'DID_RENEW',
    ]);
    expect(await typesOf(lapsing.originalTransactionId)).toEqual([
      'SUBSCRIBED',
      'DID_CHANGE_RENEWAL_STATUS',
      'EXPIRED',
    ]);
  });
});

describe.each(testDatabaseKinds)('the development clock across restarts on $name', (kind) => {
  it('keeps the offset for a dev server restarted on the same data', async () => {
    const database = await kind.create();
    try {
      let app = await buildTestApp(database);
      await app.inject({ method: 'POST', url: '/dev/clock', payload: { advanceSeconds: 3 * DAY } });
      await app.close();
      expect(isRealDate()).toBe(true);
      app = await buildTestApp(database);
      const { now } = (await app.inject({ method: 'GET', url: '/dev/clock' })).json<{
        now: string;
      }>();
      // Read while the restarted server runs: JavaScript's clock and SQL's agree on the move.
      const sqlNow = await sql<{ now: Date }>`select now() as now`.execute(app.database.db);
      await app.close();
      expect(Date.parse(now) - Date.now()).toBeGreaterThan(3 * DAY_MS - 60_000);
      expect(Math.abs(sqlNow.rows[0]!.now.getTime() - Date.parse(now))).toBeLessThan(60_000);
    } finally {
      await database.drop();
    }
  });

  it('has no /dev/clock and no dev_clock schema in production', async () => {
    const database = await kind.create();
    // Where production mail goes: a mail server on loopback that nobody writes to here.
    const mailServer = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => mailServer.listen(0, '127.0.0.1', resolve));
    try {
      const config = loadConfig({
        ...database.env,
        NODE_ENV: 'production',
        PUBLIC_URL: 'https://kegel-coach.example',
        TOKEN_SECRET: randomBytes(48).toString('base64'),
        SMTP_URL: `smtp://127.0.0.1:${(mailServer.address() as AddressInfo).port}`,
        STRIPE_SECRET_KEY: `sk_test_${randomBytes(12).toString('hex')}`,
        STRIPE_API_URL: 'https://127.0.0.1:1',
        STRIPE_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
      });
      expect(config.database.devClock).toBeUndefined();
      const app = await buildApp(config, { logger: false, webRoot: '/nonexistent-web-root' });
      try {
        await app.ready();
        expect(app.devClock).toBeNull();
        for (const method of ['GET', 'POST'] as const) {
          const response = await app.inject({
            method,
            url: '/dev/clock',
            ...(method === 'POST' ? { payload: { advanceSeconds: 60 } } : {}),
          });
          expect(response.statusCode, `${method} /dev/clock`).toBe(404);
        }
        const { rows } = await sql<{ present: boolean; now: Date }>`
          select exists (select 1 from pg_namespace where nspname = 'dev_clock') as present,
            now() as now`.execute(app.database.db);
        expect(rows[0]!.present).toBe(false);
        expect(Math.abs(rows[0]!.now.getTime() - Date.now())).toBeLessThan(60_000);
      } finally {
        await app.close();
      }
    } finally {
      mailServer.close();
      await database.drop();
    }
  });
});
