// Adversarial review of the development clock (ADR 021) and the other loopback-only pages: a page
// of another site reaching the server through a name that resolves to 127.0.0.1 (DNS rebinding),
// moves out of range, and many moves at once. Each test fails if its attack works.
import { randomBytes } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildApp } from '../../src/app';
import { loadConfig } from '../../src/config';

import { readDevClockOffsetMs } from '../../src/db/dev-clock';
import { clockOffsetMs, isRealDate } from '../../src/dev-clock/shifted-date';
import { buildTestApp, startTestServer, type TestServer } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const DAY = 24 * 60 * 60;

describe.each(testDatabaseKinds)('review: the development clock under attack on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  /** How far the clock moved: JavaScript's offset (this process's) after checking SQL's agrees. */
  async function offsetNow(): Promise<number> {
    const stored = await readDevClockOffsetMs(server.app.database.db);
    expect(stored).toBe(clockOffsetMs());
    return stored;
  }

  it('refuses a request whose Host is not this machine, though it came over loopback (DNS rebinding)', async () => {
    const before = await offsetNow();
    // A page of attacker.example whose name now resolves to 127.0.0.1: to the browser the call
    // is same-origin, the socket is loopback, and no proxy header is set. Only Host tells.
    for (const host of ['attacker.example:3000', 'attacker.example', '127.0.0.1.nip.io:3000']) {
      const moved = await server.app.inject({
        method: 'POST',
        url: '/dev/clock',
        headers: { host, 'sec-fetch-site': 'same-origin' },
        payload: { advanceSeconds: 30 * DAY },
      });
      expect(moved.statusCode, host).toBe(403);
      const read = await server.app.inject({ method: 'GET', url: '/dev/clock', headers: { host } });
      expect(read.statusCode, host).toBe(403);
    }
    expect(await offsetNow()).toBe(before);
    // This machine's own names still work.
    for (const host of ['localhost:3000', '127.0.0.1:3000', '[::1]:3000', 'app.localhost:5173']) {
      const read = await server.app.inject({ method: 'GET', url: '/dev/clock', headers: { host } });
      expect(read.statusCode, host).toBe(200);
    }
  });

  it('keeps the local inbox, which shows every reset link, from a page of another site the same way', async () => {
    // Without SMTP_URL, as `npm start` runs: the local inbox is on.
    const database = await kind.create();
    const app = await buildTestApp(database);
    try {
      const read = (host: string) =>
        app.inject({ method: 'GET', url: '/dev/inbox/messages.json', headers: { host } });
      expect((await read('attacker.example:3000')).statusCode).toBe(403);
      expect((await read('localhost:3000')).statusCode).toBe(200);
    } finally {
      await app.close();
      await database.drop();
    }
  });

  it('refuses moves out of range, other origins and other body types, and changes nothing', async () => {
    const before = await offsetNow();
    const refused: string[] = [];
    const attempts: { headers?: Record<string, string>; payload: string | object }[] = [
      { payload: { advanceSeconds: 366 * DAY + 1 } },
      { payload: { advanceSeconds: Number.MAX_SAFE_INTEGER } },
      { payload: { advanceSeconds: '1e400' } },
      { payload: { advanceSeconds: -1 } },
      { payload: { advanceSeconds: null } },
      { payload: { advanceSeconds: [] } },
      { payload: {} },
      {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'advanceHours=-5',
      },
      {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'advanceHours=Infinity',
      },
      {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'advanceHours=1e20',
      },
      // A form of another site, and another port of this machine (same-site, not same-origin).
      {
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'sec-fetch-site': 'cross-site',
        },
        payload: 'advanceSeconds=60',
      },
      { headers: { 'sec-fetch-site': 'same-site' }, payload: { advanceSeconds: 60 } },
      // text/plain is what a cross-site form may send without a preflight.
      { headers: { 'content-type': 'text/plain' }, payload: 'advanceSeconds=60' },
    ];
    for (const attempt of attempts) {
      const response = await server.app.inject({ method: 'POST', url: '/dev/clock', ...attempt });
      if (response.statusCode < 400) refused.push(JSON.stringify(attempt));
    }
    expect(refused).toEqual([]);
    expect(await offsetNow()).toBe(before);
  });

  it('adds up every one of many concurrent moves, in JavaScript and in SQL', async () => {
    const before = await offsetNow();
    const moves = await Promise.all(
      Array.from({ length: 8 }, () =>
        server.app.inject({ method: 'POST', url: '/dev/clock', payload: { advanceSeconds: 3600 } }),
      ),
    );
    expect(moves.map((move) => move.statusCode)).toEqual(Array(8).fill(200));
    const moved = (await offsetNow()) - before;
    expect(moved).toBe(8 * 3600 * 1000);
  });
});

describe.each(testDatabaseKinds)('review: the clock cookie in production on $name', (kind) => {
  it("never sets kegel_dev_clock_ms, nor follows a visitor's own, nor moves", async () => {
    const database = await kind.create();
    // Where production mail goes: a mail server on loopback that nobody writes to here.
    const mailServer = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => mailServer.listen(0, '127.0.0.1', resolve));
    try {
      const app = await buildApp(
        loadConfig({
          ...database.env,
          NODE_ENV: 'production',
          PUBLIC_URL: 'https://kegel-coach.example',
          TOKEN_SECRET: randomBytes(48).toString('base64'),
          SMTP_URL: `smtp://127.0.0.1:${(mailServer.address() as AddressInfo).port}`,
          STRIPE_SECRET_KEY: `sk_test_${randomBytes(12).toString('hex')}`,
          STRIPE_API_URL: 'https://127.0.0.1:1',
          STRIPE_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
        }),
        { logger: false, webRoot: '/nonexistent-web-root' },
      );
      try {
        await app.ready();
        for (const url of ['/api/health', '/dev/clock', '/']) {
          const response = await app.inject({
            method: 'GET',
            url,
            headers: { cookie: 'kegel_dev_clock_ms=31622400000' },
          });
          expect(String(response.headers['set-cookie'] ?? ''), url).not.toContain(
            'kegel_dev_clock_ms',
          );
        }
        const moved = await app.inject({
          method: 'POST',
          url: '/dev/clock',
          headers: { cookie: 'kegel_dev_clock_ms=31622400000' },
          payload: { advanceSeconds: 60 },
        });
        expect(moved.statusCode).toBe(404);
        expect(clockOffsetMs()).toBe(0);
        expect(isRealDate()).toBe(true);
      } finally {
        await app.close();
      }
    } finally {
      mailServer.close();
      await database.drop();
    }
  });
});
