import { rmSync } from 'node:fs';
import { brotliDecompressSync } from 'node:zlib';

import type { AddressInfo } from 'node:net';

import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { sendRaw } from './support/raw-http';
import { buildTestApp } from './support/test-app';
import { type TestDatabase, testDatabaseKinds } from './support/test-databases';
import {
  ASSET_JS,
  INDEX_HTML,
  indexIn,
  LOGIN_HTML,
  loginIn,
  writeFixtureWebRoot,
} from './support/web-root';

describe('serving the web app', () => {
  const pglite = testDatabaseKinds[0]!;
  let database: TestDatabase;
  let webRoot: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    database = await pglite.create();
    webRoot = writeFixtureWebRoot();
    app = await buildTestApp(database, { webRoot });
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
    rmSync(webRoot, { recursive: true, force: true });
  });

  it.each([
    '/',
    '/home',
    '/dashboard/settings',
    '/account/verify-email?newEmail=a%2Bb%40x.io&code=1',
    // The support desk's pages with a member's id: no copy of their own, the app routes them.
    '/ops/members/8a3c6a57-6c8b-4d0e-9b7e-3f1d2c4b5a69/view',
  ])('answers %s with index.html, revalidated on every visit', async (url) => {
    const response = await app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.body).toBe(INDEX_HTML);
  });

  describe("in the reader's language", () => {
    it.each([
      ['de-DE,de;q=0.9,en;q=0.5', undefined, 'de'],
      ['fr, es;q=0.8', undefined, 'es'],
      ['de', 'kegel-locale=es', 'es'],
      ['es', 'other=1; kegel-locale=en', 'en'],
      ['fr', undefined, 'en'],
      // Asked for but not built: English rather than nothing.
      ['de', 'kegel-locale=en-XA', 'en'],
    ])(
      'Accept-Language %j with cookie %j answers in %s',
      async (acceptLanguage, cookie, language) => {
        for (const [url, english, inLanguage] of [
          ['/auth/login', LOGIN_HTML, loginIn],
          ['/', INDEX_HTML, indexIn],
          ['/dashboard', INDEX_HTML, indexIn],
        ] as const) {
          const response = await app.inject({
            method: 'GET',
            url,
            headers: { 'accept-language': acceptLanguage, ...(cookie ? { cookie } : {}) },
          });
          expect(response.statusCode, url).toBe(200);
          expect(response.body, url).toBe(language === 'en' ? english : inLanguage(language));
          expect(response.headers['vary'], url).toMatch(/Accept-Language/);
          expect(response.headers['vary'], url).toMatch(/Cookie/);
          expect(response.headers['cache-control'], url).toBe('no-cache');
        }
      },
    );

    it('keeps a language chosen from a link (?lang=de) and answers the same address again', async () => {
      const response = await app.inject({
        method: 'GET',
        url: '/auth/login?r=%2Fdashboard&lang=de',
      });
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('/auth/login?r=%2Fdashboard');
      expect(response.headers['set-cookie']).toMatch(
        /^kegel-locale=de; Path=\/; Max-Age=31536000; SameSite=Lax$/,
      );
    });

    it.each(['/a/..//evil.example/?lang=de', '//evil.example/?lang=de', '/\\evil.example?lang=de'])(
      'never sends the browser to another site from %s, as sent on the wire',
      async (path) => {
        // Over a socket: inject() would tidy the address before the server saw it.
        if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
        const { port } = app.server.address() as AddressInfo;
        const { answers } = await sendRaw(
          port,
          `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
        );
        expect(answers[0]?.status).toBe(303);
        expect(answers[0]?.headers.get('location')).toMatch(/^\/(?![/\\])/);
      },
    );

    it('drops a language it does not speak from the address, keeping nothing', async () => {
      const response = await app.inject({ method: 'GET', url: '/home?lang=%3Cscript%3E' });
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('/home');
      expect(response.headers['set-cookie']).toBeUndefined();
    });
  });

  it.each(['/auth/login', '/auth/login?r=%2Fdashboard', '/Auth/Login/'])(
    "answers %s with the build's copy of index.html that preloads its page's code",
    async (url) => {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.body).toBe(LOGIN_HTML);
    },
  );

  it.each([
    '/account/recover/new?email=a%40x.io&code=1',
    '/account/verify-email?newEmail=a%40x.io&code=1',
    '/account/cancel-email-change?code=1',
    '/purchase/complete?email=a%40x.io&session=cs_1',
    // React Router matches paths whatever their case and with a trailing slash.
    '/Account/Recover/New/?email=a%40x.io&code=1',
  ])('sends no referrer from %s, whose address carries a code or an email', async (url) => {
    const response = await app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(INDEX_HTML);
    expect(response.headers['referrer-policy']).toBe('no-referrer');
  });

  it('keeps the site-wide referrer policy on the other pages', async () => {
    for (const url of ['/', '/home', '/auth/login', '/purchase']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.headers['referrer-policy'], url).toBe('strict-origin-when-cross-origin');
    }
  });

  it('serves hashed assets cached for a year, brotli-compressed when accepted', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/assets/index-AbC123.js',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(response.rawPayload).toString()).toBe(ASSET_JS);
  });

  it('serves the uncompressed asset to clients that accept no compression', async () => {
    const response = await app.inject({ method: 'GET', url: '/assets/index-AbC123.js' });
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.body).toBe(ASSET_JS);
  });

  it('serves other files without the long cache', async () => {
    const response = await app.inject({ method: 'GET', url: '/favicon.svg' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-cache');
  });

  it('answers a missing asset with 404, not with the page', async () => {
    const response = await app.inject({ method: 'GET', url: '/assets/index-Gone99.js' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  it('keeps /api out of the fallback', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/users/nobody' });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });

  it('does not answer non-GET requests with the page', async () => {
    const response = await app.inject({ method: 'POST', url: '/home' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ statusCode: 404 });
  });

  it('compresses API answers that are worth it', async () => {
    // The API document: an answer far over the threshold (a 404 no longer repeats its path).
    const response = await app.inject({
      method: 'GET',
      url: '/api/openapi.json',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBe('gzip');
  });
});

describe('source maps', () => {
  const pglite = testDatabaseKinds[0]!;
  let webRoot: string;
  beforeAll(() => {
    webRoot = writeFixtureWebRoot();
  });
  afterAll(() => rmSync(webRoot, { recursive: true, force: true }));

  async function withServer(
    env: Record<string, string>,
    use: (app: FastifyInstance) => Promise<void>,
  ): Promise<void> {
    const database = await pglite.create();
    const app = await buildTestApp(database, { webRoot, env });
    try {
      await use(app);
    } finally {
      await app.close();
      await database.drop();
    }
  }

  it("are not served in production: the source is nobody else's business", async () => {
    await withServer(
      {
        NODE_ENV: 'production',
        SMTP_URL: 'smtps://mailer:secret@smtp.example.com:465',
        STRIPE_SECRET_KEY: 'sk_test_never_called',
        PWNED_PASSWORDS: 'off',
      },
      async (app) => {
        for (const url of [
          '/assets/index-AbC123.js.map',
          '/assets/index-AbC123.js.map.br',
          '/assets/index-AbC123.js.map.gz',
        ]) {
          for (const encoding of ['br, gzip', 'identity']) {
            const response = await app.inject({
              method: 'GET',
              url,
              headers: { 'accept-encoding': encoding },
            });
            expect(response.statusCode, `${url} (${encoding})`).toBe(404);
            expect(response.body).not.toContain('sources');
          }
        }
        // The script itself still loads.
        const script = await app.inject({ method: 'GET', url: '/assets/index-AbC123.js' });
        expect(script.statusCode).toBe(200);
      },
    );
  });

  it("are served in development, for the browser's developer tools", async () => {
    await withServer({}, async (app) => {
      const response = await app.inject({ method: 'GET', url: '/assets/index-AbC123.js.map' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ version: 3 });
    });
  });
});
