// Review of issue 29 (languages), as an attacker and as a careless client: the page's language
// (cookie, Accept-Language, ?lang=), caches, the API's translated messages, member preferences.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync } from 'node:zlib';

import { PAGE_LOCALES } from '@kegel/contract/i18n';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { registerAndLogin } from '../support/accounts';
import { buildTestApp, uniqueEmail } from '../support/test-app';
import { type TestDatabase, testDatabaseKinds } from '../support/test-databases';
import { indexIn, writeFixtureWebRoot } from '../support/web-root';

/** Odd, hostile or careless Accept-Language headers. */
function oddAcceptLanguages(): string[] {
  const odd = [
    '',
    ' ',
    '*',
    '*;q=0',
    ',,,,',
    ';;;',
    ';q=1',
    'de;q=',
    'de;q=abc',
    'de;q=1.0000001',
    'de;q=-1',
    'de;q=2',
    'de;q=NaN',
    'de;q=Infinity',
    'de;q=0.0',
    'en-XA',
    ' en-XA ',
    'en-xa',
    'en-XA;q=1',
    'de-DE-x-private',
    'i-klingon',
    'zh-Hant-TW',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty, de',
    '{count}',
    '{0}',
    "'{'",
    '#',
    '<script>',
    '\\u0041',
    '\\x41',
    'de\t;\tq=0.5',
    'de;q=0.5;q=0.9',
    'de;level=1',
    'es-419',
    'x'.repeat(8000),
    `${'de;q=0.1,'.repeat(500)}es`,
    Array.from({ length: 300 }, (_, index) => `l${index};q=0.${index % 10}`).join(','),
    'é',
    'Deutsch',
    'DE',
    'ES-es',
  ];
  // A few hundred random ones made of the characters a header may carry.
  const alphabet = 'abcdeszAXE-_;=,.*q01 \t{}#\'"\\<>|/';
  let seed = 29;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let index = 0; index < 250; index += 1) {
    const length = 1 + Math.floor(random() * 40);
    odd.push(
      Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''),
    );
  }
  return odd;
}

describe('i18n review', () => {
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

  describe("the page's language", () => {
    it('a precompressed page says it varies with Accept-Encoding too (shared caches)', async () => {
      for (const url of ['/', '/home']) {
        const response = await app.inject({
          method: 'GET',
          url,
          headers: { 'accept-encoding': 'br', 'accept-language': 'de' },
        });
        expect(response.statusCode, url).toBe(200);
        expect(response.headers['content-encoding'], url).toBe('br');
        const vary = String(response.headers.vary).toLowerCase();
        expect(vary, url).toContain('accept-language');
        expect(vary, url).toContain('cookie');
        // Without it a cache hands the brotli bytes to a client that never asked for them.
        expect(vary, url).toContain('accept-encoding');
      }
    });

    it('a precompressed asset says it varies with Accept-Encoding (cached a year, immutable)', async () => {
      writeFileSync(path.join(webRoot, 'assets', 'index-AbC123.js.br'), brotliCompressSync('x'));
      const response = await app.inject({
        method: 'GET',
        url: '/assets/index-AbC123.js',
        headers: { 'accept-encoding': 'br' },
      });
      expect(response.headers['content-encoding']).toBe('br');
      expect(String(response.headers.vary)).toMatch(/accept-encoding/i);
    });

    it('keeps Vary and Content-Language on HEAD, and the page carries no validator', async () => {
      for (const method of ['GET', 'HEAD'] as const) {
        const response = await app.inject({
          method,
          url: '/home',
          headers: { 'accept-language': 'es' },
        });
        expect(response.statusCode, method).toBe(200);
        expect(String(response.headers.vary), method).toMatch(/accept-language/i);
        expect(response.headers['content-language'], method).toBe('es');
        // One address, a copy per language: no ETag or Last-Modified a cache could mix up.
        expect(response.headers.etag, method).toBeUndefined();
        expect(response.headers['last-modified'], method).toBeUndefined();
      }
    });

    it("never answers 304 to one language's page with another's validator", async () => {
      // The Spanish and German copies are the same size (the real build's are too: they differ only
      // in lang="es"/"de" and in hashes of equal length) and carry the build's time: send's weak
      // ETag (size and mtime) is the same for both, and the German reader is told to keep Spanish.
      const spanish = await app.inject({
        method: 'GET',
        url: '/home',
        headers: { 'accept-language': 'es' },
      });
      // A validator a client might still hold from before pages stopped sending one.
      const etag = spanish.headers.etag ?? 'W/"1a2b-19c3d4e5f6a"';
      const german = await app.inject({
        method: 'GET',
        url: '/home',
        headers: { 'accept-language': 'de', 'if-none-match': etag },
      });
      expect(german.statusCode).toBe(200);
      expect(german.body).toBe(indexIn('de'));

      // Last-Modified likewise: a cache holding the English page revalidates it for a German reader.
      const english = await app.inject({ method: 'GET', url: '/home' });
      const sinceEnglish = await app.inject({
        method: 'GET',
        url: '/home',
        headers: {
          'accept-language': 'de',
          'if-modified-since': String(english.headers['last-modified'] ?? new Date().toUTCString()),
        },
      });
      expect(sinceEnglish.statusCode).toBe(200);
    });

    it.each([
      'kegel-locale=../secret',
      'kegel-locale=..%2Fsecret',
      'kegel-locale=../../../../etc',
      'kegel-locale=/etc',
      'kegel-locale=de/../../secret',
      'kegel-locale=secret',
      'kegel-locale=en-XA',
      'kegel-locale=',
      'kegel-locale',
      `kegel-locale=${'d'.repeat(4000)}`,
      'kegel-locale=de; kegel-locale=../secret',
    ])('never reads a folder a cookie names (case %#)', async (cookie) => {
      const response = await app.inject({ method: 'GET', url: '/home', headers: { cookie } });
      expect(response.statusCode).toBe(200);
      expect(response.body).not.toContain('SECRET');
      expect(PAGE_LOCALES).toContain(response.headers['content-language']);
    });

    it('takes no pseudo-locale from a link: anyone could put a visitor in it for a year', async () => {
      // `https://kegel.example/home?lang=en-XA`, linked from any site, would keep him in bracketed
      // English ([Ŝîĝñ îñ ···]) until he finds the footer; the pseudo-locale is for the cookie only.
      const response = await app.inject({ method: 'GET', url: '/home?lang=en-XA' });
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('/home');
      expect(response.headers['set-cookie']).toBeUndefined();
    });

    it.each(['/api/users/profile?lang=de', '/assets/index-AbC123.js?lang=de', '/api?lang=de'])(
      'takes no language choice on %s (no redirect, no cookie)',
      async (url) => {
        const response = await app.inject({ method: 'GET', url });
        expect(response.statusCode).not.toBe(303);
        expect(response.headers['set-cookie'] ?? '').not.toMatch(/kegel-locale/);
      },
    );

    it.each([
      '/home?lang=de%0d%0aSet-Cookie:%20x=1',
      '/home?lang=de%0d%0a',
      '/%0d%0aX-Injected:%201?lang=de',
      '/home?lang=de&lang=../secret',
      '/home?lang=' + 'x'.repeat(5000),
    ])('injects no header through ?lang= (case %#)', async (url) => {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(303);
      expect(response.headers['x-injected']).toBeUndefined();
      expect(String(response.headers['set-cookie'] ?? '')).not.toMatch(/x=1|secret|\r|\n/);
      expect(String(response.headers.location)).toMatch(/^\/(?![/\\])/);
      expect(String(response.headers.location)).not.toMatch(/[\r\n]/);
    });
  });

  describe("the API's messages in the caller's language", () => {
    const calls = [
      { method: 'GET', url: '/api/no-such-call' },
      { method: 'GET', url: '/api/users/profile' },
      { method: 'DELETE', url: '/api/auth/local/login/email' },
      { method: 'POST', url: '/api/auth/local/login/email', payload: {} },
      {
        method: 'POST',
        url: '/api/auth/local/login/email',
        payload: { email: 'nobody@example.com', password: 'wrong horse' },
      },
      {
        method: 'POST',
        url: '/api/auth/refresh',
        payload: '{not json',
        headers: { 'content-type': 'application/json' },
      },
      {
        method: 'POST',
        url: '/api/auth/refresh',
        payload: 'x',
        headers: { 'content-type': 'text/plain' },
      },
      { method: 'POST', url: '/home' },
    ] as const;

    it('never fails (5xx) for any Accept-Language, and names the language it answers in', async () => {
      const failures: string[] = [];
      for (const acceptLanguage of oddAcceptLanguages()) {
        for (const call of calls) {
          const response = await app.inject({
            method: call.method,
            url: call.url,
            ...('payload' in call ? { payload: call.payload } : {}),
            headers: {
              ...('headers' in call ? call.headers : {}),
              'accept-language': acceptLanguage,
            },
          });
          const where = `${call.method} ${call.url} with ${JSON.stringify(acceptLanguage.slice(0, 60))}`;
          if (response.statusCode >= 500) failures.push(`${where}: ${response.statusCode}`);
          else if (!PAGE_LOCALES.includes(response.headers['content-language'] as never))
            failures.push(`${where}: content-language ${response.headers['content-language']}`);
          else if (!/accept-language/i.test(String(response.headers.vary)))
            failures.push(`${where}: vary ${response.headers.vary}`);
          else if (typeof response.json<{ message?: unknown }>().message === 'undefined')
            failures.push(`${where}: no message`);
        }
      }
      expect(failures.slice(0, 20)).toEqual([]);
    });

    it.each(['de', 'es', 'en-XA'])(
      "words the NUL refusal as its catalog writes it in %s (Lingui's \\u decoding must not make a real NUL)",
      async (language) => {
        const response = await app.inject({
          method: 'POST',
          url: '/api/auth/local/login/email',
          headers: { 'content-type': 'application/json', 'accept-language': language },
          payload: '{"email":"a\\u0000b@example.com","password":"correct horse"}',
        });
        expect(response.statusCode).toBe(400);
        const { message } = response.json<{ message: string }>();
        // The catalogs write the six characters \u0000 (naming the character), as English shows them;
        // the pseudo-locale accents their letter like any other.
        expect(message).toMatch(language === 'en-XA' ? /\\ú0000/ : /\\u0000/);
        expect(message).not.toContain('\u0000');
      },
    );

    it.each(['de', 'es', 'en-XA'])(
      "keeps a field's name as sent in the templated refusal in %s",
      async (language) => {
        const response = await app.inject({
          method: 'POST',
          url: '/api/auth/refresh',
          headers: { 'accept-language': language },
          payload: {},
        });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({
          message: [expect.stringContaining('refreshToken')],
          fields: [{ field: 'refreshToken', message: expect.stringContaining('refreshToken') }],
        });
        expect(response.body).not.toMatch(/\{field\}/);
      },
    );

    it('refuses a language a member cannot choose, in every shape', async () => {
      const { accessToken } = await registerAndLogin(app, uniqueEmail('review'), 'correct horse');
      for (const locale of [
        'en-XA',
        'en-xa',
        ['de'],
        { de: true },
        'de ',
        'de\u0000',
        '__proto__',
        'x'.repeat(10000),
        true,
        null,
      ]) {
        const refused = await app.inject({
          method: 'PUT',
          url: '/api/users/preferences',
          headers: { authorization: `Bearer ${accessToken}`, 'accept-language': 'de' },
          payload: { locale },
        });
        expect(refused.statusCode, `${JSON.stringify(locale).slice(0, 40)}`).toBe(400);
        expect(refused.headers['content-language']).toBe('de');
        expect(refused.body).not.toContain('xxxxxxxxxx');
      }
      const profile = await app.inject({
        method: 'GET',
        url: '/api/users/profile',
        headers: { authorization: `Bearer ${accessToken}` },
      });
      expect(profile.json<{ locale: unknown }>().locale).toBe('en');
    });
  });
});
