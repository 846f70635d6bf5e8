import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildTestApp, TEST_TOKEN_SECRET } from './support/test-app';
import { type TestDatabase, testDatabaseKinds } from './support/test-databases';

const pglite = testDatabaseKinds[0]!;

/** A Content-Security-Policy header as directive → sources. */
function policyOf(header: string | string[] | number | undefined): Map<string, string[]> {
  expect(typeof header, 'a Content-Security-Policy header').toBe('string');
  return new Map(
    String(header)
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name = '', ...sources]) => [name, sources]),
  );
}

function writeWebRoot(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'kegel-web-'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>Kegel Coach</title>');
  return root;
}

/** Everything production needs, nothing that reaches the network at start. */
const PRODUCTION = {
  NODE_ENV: 'production',
  SMTP_URL: 'smtps://mailer:secret@smtp.example.com:465',
  STRIPE_SECRET_KEY: 'sk_test_never_called',
  PWNED_PASSWORDS: 'off',
  TOKEN_SECRET: TEST_TOKEN_SECRET,
};

describe('security headers', () => {
  let webRoot: string;
  let database: TestDatabase;
  let app: FastifyInstance;

  beforeAll(async () => {
    webRoot = writeWebRoot();
    database = await pglite.create();
    // TEST_PUBLIC_URL is https; Google and Apple run on the local identity sandbox.
    app = await buildTestApp(database, { webRoot });
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
    rmSync(webRoot, { recursive: true, force: true });
  });

  it('sends a Content-Security-Policy that runs only our scripts and the providers’ in use', async () => {
    const response = await app.inject({ method: 'GET', url: '/auth/login' });
    expect(response.statusCode).toBe(200);
    const policy = policyOf(response.headers['content-security-policy']);
    const { google, apple } = app.identity.providers;
    expect(policy.get('script-src')).toEqual(["'self'", google?.scriptUrl, apple?.scriptUrl]);
    expect(policy.get('default-src')).toEqual(["'self'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'self'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('form-action')).toEqual(["'self'"]);
    for (const [directive, sources] of policy) {
      expect(sources, directive).not.toContain("'unsafe-inline'");
      expect(sources, directive).not.toContain("'unsafe-eval'");
    }
  });

  it('tells browsers not to sniff, not to frame, to keep the opener for sign-in popups, and https for a year', async () => {
    for (const url of ['/home', '/dashboard', '/api/health', '/api/nothing-here']) {
      const { headers } = await app.inject({ method: 'GET', url });
      expect(headers['x-content-type-options'], url).toBe('nosniff');
      expect(headers['x-frame-options'], url).toBe('DENY');
      expect(headers['content-security-policy'], url).toContain("frame-ancestors 'none'");
      expect(headers['strict-transport-security'], url).toBe('max-age=31536000');
      // Google's and Apple's popups hand their answer back through window.opener.
      expect(headers['cross-origin-opener-policy'], url).toBe('same-origin-allow-popups');
    }
  });

  it('sends strict-origin-when-cross-origin, and still no-referrer from the emailed-link pages', async () => {
    const home = await app.inject({ method: 'GET', url: '/home' });
    expect(home.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    for (const url of [
      '/account/recover/new?email=a%40x.io&code=1',
      '/account/verify-email?newEmail=a%40x.io&code=1',
      '/account/cancel-email-change?code=1',
      '/purchase/complete?email=a%40x.io&session=cs_1',
    ]) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.headers['referrer-policy'], url).toBe('no-referrer');
      expect(response.headers['content-security-policy'], url).toContain("script-src 'self'");
    }
  });

  it('gives the local inbox a policy of its own: its style by hash, nothing else', async () => {
    const response = await app.inject({ method: 'GET', url: '/dev/inbox' });
    expect(response.statusCode).toBe(200);
    const policy = policyOf(response.headers['content-security-policy']);
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('style-src')).toEqual([expect.stringMatching(/^'sha256-[\w+/]+=*'$/)]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('lets the API reference run its own scripts, no inline ones', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/docs' });
    expect(response.statusCode).toBe(200);
    const policy = policyOf(response.headers['content-security-policy']);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
  });

  it('sends no HSTS and no upgrade-insecure-requests when PUBLIC_URL is plain http', async () => {
    const plainDatabase = await pglite.create();
    const plain = await buildTestApp(plainDatabase, {
      webRoot,
      env: { PUBLIC_URL: 'http://localhost:3000' },
    });
    try {
      const response = await plain.inject({ method: 'GET', url: '/home' });
      expect(response.headers['strict-transport-security']).toBeUndefined();
      expect(
        policyOf(response.headers['content-security-policy']).has('upgrade-insecure-requests'),
      ).toBe(false);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    } finally {
      await plain.close();
      await plainDatabase.drop();
    }
  });

  it.each([
    [
      'Google and Apple configured',
      {
        GOOGLE_CLIENT_ID: 'id.apps.googleusercontent.com',
        GOOGLE_CLIENT_SECRET: 'secret',
        APPLE_CLIENT_ID: 'app.kegelcoach.web',
      },
      [
        "'self'",
        'https://accounts.google.com/gsi/client',
        'https://appleid.cdn-apple.com/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js',
      ],
    ],
    ['neither configured', {}, ["'self'"]],
  ])('in production with %s, allows exactly those scripts', async (_case, env, scripts) => {
    const productionDatabase = await pglite.create();
    const production = await buildTestApp(productionDatabase, {
      webRoot,
      env: { ...PRODUCTION, ...env },
    });
    try {
      const response = await production.inject({ method: 'GET', url: '/auth/login' });
      const policy = policyOf(response.headers['content-security-policy']);
      expect(policy.get('script-src')).toEqual(scripts);
      expect(policy.has('upgrade-insecure-requests')).toBe(true);
      expect(response.headers['strict-transport-security']).toBe('max-age=31536000');
    } finally {
      await production.close();
      await productionDatabase.drop();
    }
  });
});
