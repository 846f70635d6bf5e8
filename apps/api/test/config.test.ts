import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';

import { ConfigError, loadConfig } from '../src/config';
import { appStoreEnv, startTestAppStoreSandbox } from './support/app-store';

const dirs: string[] = [];
function freshDataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'kegel-config-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('works offline with no settings: PGlite under DATA_DIR, port 3000, localhost links', () => {
    const dataDir = freshDataDir();
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(config.port).toBe(3000);
    expect(config.host).toBe('localhost');
    expect(config.publicUrl).toBe('http://localhost:3000');
    expect(config.database).toEqual({
      kind: 'pglite',
      dataDir: path.join(dataDir, 'pglite'),
      devClock: true,
    });
  });

  it('uses PostgreSQL when DATABASE_URL is set', () => {
    const config = loadConfig({
      DATA_DIR: freshDataDir(),
      DATABASE_URL: 'postgres://u:p@db:5432/kegel',
    });
    expect(config.database).toEqual({
      kind: 'postgres',
      url: 'postgres://u:p@db:5432/kegel',
      devClock: true,
    });
  });

  it('names PORT when it is not a port number', () => {
    expect(problemsOf({ DATA_DIR: freshDataDir(), PORT: 'eighty' })).toEqual([
      'PORT: must be a whole number from 1 to 65535 (got "eighty")',
    ]);
    expect(problemsOf({ DATA_DIR: freshDataDir(), PORT: '70000' })).toEqual([
      'PORT: must be from 1 to 65535 (got "70000")',
    ]);
  });

  it('names DATABASE_URL when it is not a PostgreSQL URL, without echoing it', () => {
    const [problem] = problemsOf({
      DATA_DIR: freshDataDir(),
      DATABASE_URL: 'mysql://root:secret@db/x',
    });
    expect(problem).toMatch(/^DATABASE_URL: must be a PostgreSQL URL/);
    expect(problem).not.toContain('secret');
  });

  it('generates the token secret once and keeps it in DATA_DIR', () => {
    const dataDir = freshDataDir();
    const first = loadConfig({ DATA_DIR: dataDir });
    const second = loadConfig({ DATA_DIR: dataDir });
    expect(first.tokenSecret.length).toBeGreaterThanOrEqual(32);
    expect(second.tokenSecret).toBe(first.tokenSecret);
    const stored = JSON.parse(
      readFileSync(path.join(dataDir, 'generated-secrets.json'), 'utf8'),
    ) as {
      tokenSecret: string;
    };
    expect(stored.tokenSecret).toBe(first.tokenSecret);
    expect(second.stripe.webhookSecret).toMatch(/^whsec_/);
    expect(second.stripe.webhookSecret).toBe(first.stripe.webhookSecret);
  });

  it('adds a newly needed secret to an older secrets file, keeping the ones it had', () => {
    const dataDir = freshDataDir();
    writeFileSync(
      path.join(dataDir, 'generated-secrets.json'),
      JSON.stringify({ tokenSecret: 'kept'.repeat(10) }),
    );
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(config.tokenSecret).toBe('kept'.repeat(10));
    expect(config.stripe.webhookSecret).toMatch(/^whsec_/);
  });

  it('refuses generated secrets and a missing public URL in production', () => {
    expect(problemsOf({ NODE_ENV: 'production', DATA_DIR: freshDataDir() })).toEqual([
      'TOKEN_SECRET: required in production (generated secrets are refused)',
      'SMTP_URL: required in production (the local inbox sandbox is refused)',
      'STRIPE_SECRET_KEY: required in production (the payment sandbox is refused)',
      'STRIPE_WEBHOOK_SECRET: required in production (generated secrets are refused)',
      'PUBLIC_URL: required in production (links in emails are built from it)',
    ]);
  });

  it('accepts a complete production configuration', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      DATA_DIR: freshDataDir(),
      TOKEN_SECRET: randomBytes(48).toString('base64'),
      PUBLIC_URL: 'https://app.example.com/',
      SMTP_URL: 'smtps://mailer:secret@smtp.example.com:465',
      STRIPE_SECRET_KEY: 'sk_live_abc123',
      STRIPE_WEBHOOK_SECRET: 'whsec_abc123',
      DATABASE_URL: 'postgresql://kegel@db.internal/kegel',
    });
    expect(config.publicUrl).toBe('https://app.example.com');
    expect(config.environment).toBe('production');
  });

  it('runs the App Store sandbox in development and no App Store in production without APPLE_BUNDLE_ID', () => {
    expect(loadConfig({ DATA_DIR: freshDataDir() }).appStore).toBe('sandbox');
    expect(
      loadConfig({
        NODE_ENV: 'production',
        DATA_DIR: freshDataDir(),
        TOKEN_SECRET: randomBytes(48).toString('base64'),
        PUBLIC_URL: 'https://app.example.com/',
        SMTP_URL: 'smtps://mailer:secret@smtp.example.com:465',
        STRIPE_SECRET_KEY: 'sk_live_abc123',
        STRIPE_WEBHOOK_SECRET: 'whsec_abc123',
      }).appStore,
    ).toBe('off');
  });

  it('wants the app id and the roots with APPLE_BUNDLE_ID in production, and reads the roots', () => {
    const dataDir = freshDataDir();
    expect(
      problemsOf({
        NODE_ENV: 'production',
        DATA_DIR: dataDir,
        APPLE_BUNDLE_ID: 'app.kegelcoach.ios',
      }).filter((problem) => problem.startsWith('APPLE_')),
    ).toEqual([
      'APPLE_APP_APPLE_ID: required in production with APPLE_BUNDLE_ID (Production payloads are verified against it)',
      'APPLE_ROOT_CERTIFICATES: required in production with APPLE_BUNDLE_ID (the paths of Apple Root CA - G3, DER or PEM)',
    ]);
    const notACertificate = path.join(dataDir, 'root.der');
    writeFileSync(notACertificate, 'hello');
    expect(
      problemsOf({
        DATA_DIR: dataDir,
        APPLE_BUNDLE_ID: 'app.kegelcoach.ios',
        APPLE_APP_APPLE_ID: 'one two',
        APPLE_REFUSE_SANDBOX: 'yes',
        APPLE_ROOT_CERTIFICATES: notACertificate,
      }),
    ).toEqual([
      'APPLE_APP_APPLE_ID: must be the app\'s numeric Apple id (App Store Connect → App Information) (got "one two")',
      'APPLE_REFUSE_SANDBOX: must be true or false (got "yes")',
    ]);
    expect(
      problemsOf({
        DATA_DIR: dataDir,
        APPLE_BUNDLE_ID: 'app.kegelcoach.ios',
        APPLE_ROOT_CERTIFICATES: notACertificate,
      }),
    ).toEqual([`APPLE_ROOT_CERTIFICATES: ${notACertificate} is not a certificate (DER or PEM)`]);
    expect(problemsOf({ DATA_DIR: dataDir, APPLE_BUNDLE_ID: 'app.kegelcoach.ios' })).toEqual([
      'APPLE_ROOT_CERTIFICATES: required with APPLE_BUNDLE_ID (without roots no payload verifies; unset APPLE_BUNDLE_ID for the App Store sandbox)',
    ]);
    const missing = path.join(dataDir, 'missing.der');
    expect(
      problemsOf({
        DATA_DIR: dataDir,
        APPLE_BUNDLE_ID: 'app.kegelcoach.ios',
        APPLE_ROOT_CERTIFICATES: missing,
      })[0],
    ).toMatch(new RegExp(`^APPLE_ROOT_CERTIFICATES: cannot read ${missing}: ENOENT`));
  });

  it('rejects a short TOKEN_SECRET without printing it', () => {
    const [problem] = problemsOf({ DATA_DIR: freshDataDir(), TOKEN_SECRET: 'short' });
    expect(problem).toMatch(/^TOKEN_SECRET: must be at least 32 characters/);
    expect(problem).not.toContain('short"');
  });

  it('points the Stripe SDK at STRIPE_API_URL only with a key, and only over https in production', () => {
    const withKey = { DATA_DIR: freshDataDir(), STRIPE_SECRET_KEY: 'sk_test_abc' };
    expect(loadConfig(withKey).stripe.apiUrl).toBeUndefined();
    expect(
      loadConfig({ ...withKey, STRIPE_API_URL: 'http://127.0.0.1:12111/' }).stripe.apiUrl,
    ).toBe('http://127.0.0.1:12111');
    expect(problemsOf({ DATA_DIR: freshDataDir(), STRIPE_API_URL: 'http://127.0.0.1:1' })).toEqual([
      'STRIPE_API_URL: needs STRIPE_SECRET_KEY (without a key the local sandbox stands in for Stripe)',
    ]);
    expect(problemsOf({ ...withKey, STRIPE_API_URL: 'http://127.0.0.1:1/v1' })).toEqual([
      'STRIPE_API_URL: must be a base URL without a path, such as http://127.0.0.1:12111 (got "http://127.0.0.1:1/v1")',
    ]);
    expect(
      problemsOf({
        ...withKey,
        NODE_ENV: 'production',
        TOKEN_SECRET: randomBytes(48).toString('base64'),
        SMTP_URL: 'smtps://mail.example.com',
        STRIPE_WEBHOOK_SECRET: 'whsec_abc',
        PUBLIC_URL: 'https://app.example.com',
        STRIPE_API_URL: 'http://stripe-mock:12111',
      }),
    ).toEqual(['STRIPE_API_URL: must be https in production']);
  });

  it('takes a METRICS_TOKEN of 32 characters or more, and never prints a refused one', () => {
    const token = 'm'.repeat(20) + '0123456789ab';
    expect(loadConfig({ DATA_DIR: freshDataDir(), METRICS_TOKEN: token }).metricsToken).toBe(token);
    expect(loadConfig({ DATA_DIR: freshDataDir() }).metricsToken).toBeUndefined();
    const [problem] = problemsOf({ DATA_DIR: freshDataDir(), METRICS_TOKEN: 'tooshort' });
    expect(problem).toMatch(/^METRICS_TOKEN: must be at least 32 characters/);
    expect(problem).not.toContain('tooshort');
  });

  it('sizes the /auth budgets for 5,000 people behind one address by default', () => {
    const config = loadConfig({ DATA_DIR: freshDataDir() });
    expect(config.authRequestsPerMinute).toBe(5000);
    expect(config.authAttemptsPerAddressPerHour).toBe(200);
    expect(config.signInPageRequestsPerMinute).toBe(2000);
    expect(config.registrationsPerAddressPerHour).toBe(10);
    const tuned = loadConfig({
      DATA_DIR: freshDataDir(),
      AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR: '50',
      SIGN_IN_PAGE_REQUESTS_PER_MINUTE: '300',
    });
    expect(tuned.authAttemptsPerAddressPerHour).toBe(50);
    expect(tuned.signInPageRequestsPerMinute).toBe(300);
  });

  it('budgets checkouts and checkout lookups per hour, each a call to Stripe', () => {
    const config = loadConfig({ DATA_DIR: freshDataDir() });
    expect(config.checkoutsPerAddressPerHour).toBe(20);
    expect(config.checkoutsPerEmailPerHour).toBe(30);
    expect(config.checkoutLookupsPerAddressPerHour).toBe(100);
    const tuned = loadConfig({
      DATA_DIR: freshDataDir(),
      CHECKOUT_LOOKUPS_PER_ADDRESS_PER_HOUR: '250',
    });
    expect(tuned.checkoutLookupsPerAddressPerHour).toBe(250);
    expect(
      problemsOf({ DATA_DIR: freshDataDir(), CHECKOUT_LOOKUPS_PER_ADDRESS_PER_HOUR: '0' }),
    ).toEqual(['CHECKOUT_LOOKUPS_PER_ADDRESS_PER_HOUR: must be at least 1 (got "0")']);
  });

  it('names a budget that is not a whole number of at least 1', () => {
    expect(
      problemsOf({
        DATA_DIR: freshDataDir(),
        AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR: 'lots',
        SIGN_IN_PAGE_REQUESTS_PER_MINUTE: '0',
      }),
    ).toEqual([
      'AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR: must be a whole number (got "lots")',
      'SIGN_IN_PAGE_REQUESTS_PER_MINUTE: must be at least 1 (got "0")',
    ]);
  });

  it('drains for 5 seconds on SIGTERM by default, or SHUTDOWN_DRAIN_SECONDS (0 to 120)', () => {
    expect(loadConfig({ DATA_DIR: freshDataDir() }).shutdownDrainSeconds).toBe(5);
    expect(
      loadConfig({ DATA_DIR: freshDataDir(), SHUTDOWN_DRAIN_SECONDS: '0' }).shutdownDrainSeconds,
    ).toBe(0);
    expect(
      loadConfig({ DATA_DIR: freshDataDir(), SHUTDOWN_DRAIN_SECONDS: '30' }).shutdownDrainSeconds,
    ).toBe(30);
    for (const given of ['five', '2.5', '-1']) {
      expect(problemsOf({ DATA_DIR: freshDataDir(), SHUTDOWN_DRAIN_SECONDS: given })).toEqual([
        `SHUTDOWN_DRAIN_SECONDS: must be a whole number of seconds from 0 to 120 (got "${given}")`,
      ]);
    }
    expect(problemsOf({ DATA_DIR: freshDataDir(), SHUTDOWN_DRAIN_SECONDS: '121' })).toEqual([
      'SHUTDOWN_DRAIN_SECONDS: must be a whole number of seconds from 0 to 120 (got "121")',
    ]);
  });

  describe('TRUST_PROXY', () => {
    const production = {
      NODE_ENV: 'production',
      TOKEN_SECRET: randomBytes(48).toString('base64'),
      PUBLIC_URL: 'https://app.example.com',
      SMTP_URL: 'smtps://mailer:secret@smtp.example.com:465',
      STRIPE_SECRET_KEY: 'sk_live_abc123',
      STRIPE_WEBHOOK_SECRET: 'whsec_abc123',
    };

    it('trusts no proxy by default, nor with false or 0', () => {
      expect(loadConfig({ DATA_DIR: freshDataDir() }).trustProxy).toBe(false);
      expect(loadConfig({ DATA_DIR: freshDataDir(), TRUST_PROXY: 'false' }).trustProxy).toBe(false);
      expect(loadConfig({ DATA_DIR: freshDataDir(), TRUST_PROXY: '0' }).trustProxy).toBe(false);
    });

    it('takes a number of proxies in front of the server', () => {
      expect(loadConfig({ DATA_DIR: freshDataDir(), TRUST_PROXY: '1' }).trustProxy).toBe(1);
      expect(loadConfig({ DATA_DIR: freshDataDir(), TRUST_PROXY: ' 2 ' }).trustProxy).toBe(2);
      expect(
        loadConfig({ ...production, DATA_DIR: freshDataDir(), TRUST_PROXY: '1' }).trustProxy,
      ).toBe(1);
    });

    it("takes the proxies' addresses and networks, IPv4 and IPv6, comma-separated", () => {
      const config = loadConfig({
        ...production,
        DATA_DIR: freshDataDir(),
        TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,fd00::/8 , 2001:db8::1, loopback',
      });
      expect(config.trustProxy).toEqual([
        '10.0.0.0/8',
        '192.168.1.7',
        'fd00::/8',
        '2001:db8::1',
        'loopback',
      ]);
    });

    it('names TRUST_PROXY when it is neither a number nor a list of addresses', () => {
      for (const given of [
        'yes',
        '-1',
        '1.5',
        '10.0.0.0/33',
        'fd00::/129',
        '10.0.0.1,,10.0.0.2',
        '300.1.1.1',
      ]) {
        expect(problemsOf({ DATA_DIR: freshDataDir(), TRUST_PROXY: given })).toEqual([
          `TRUST_PROXY: must be false, the number of proxies in front of the server (e.g. 1) or their addresses or CIDRs, comma-separated (got "${given}")`,
        ]);
      }
    });

    it('refuses true in production: it lets any client choose the address it is counted as', () => {
      expect(problemsOf({ ...production, DATA_DIR: freshDataDir(), TRUST_PROXY: 'true' })).toEqual([
        'TRUST_PROXY: true trusts every X-Forwarded-For hop, so a client picks its own address; give the number of proxies (e.g. 1) or their addresses',
      ]);
    });

    it('still takes true in development, where the server warns about it at start', () => {
      expect(loadConfig({ DATA_DIR: freshDataDir(), TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    });
  });

  it('signs in with Google and Apple through the sandbox in development, not in production', () => {
    const development = loadConfig({ DATA_DIR: freshDataDir() });
    expect(development.google).toBe('sandbox');
    expect(development.apple).toBe('sandbox');
    const production = loadConfig({
      DATA_DIR: freshDataDir(),
      NODE_ENV: 'production',
      TOKEN_SECRET: randomBytes(48).toString('base64'),
      SMTP_URL: 'smtps://u:p@smtp.example.com:465',
      STRIPE_SECRET_KEY: 'sk_live_abc',
      STRIPE_WEBHOOK_SECRET: 'whsec_abc',
      PUBLIC_URL: 'https://kegelcoach.app',
    });
    expect(production.google).toBe('off');
    expect(production.apple).toBe('off');
  });

  it('takes real Google and Apple clients, and wants the Google secret with its id', () => {
    const config = loadConfig({
      DATA_DIR: freshDataDir(),
      GOOGLE_CLIENT_ID: 'id.apps.googleusercontent.com',
      GOOGLE_CLIENT_SECRET: 'secret',
      APPLE_CLIENT_ID: 'app.kegelcoach.web',
    });
    expect(config.google).toEqual({
      clientId: 'id.apps.googleusercontent.com',
      clientSecret: 'secret',
      issuer: 'https://accounts.google.com',
    });
    expect(config.apple).toEqual({
      clientId: 'app.kegelcoach.web',
      issuer: 'https://appleid.apple.com',
      jwksUrl: 'https://appleid.apple.com/auth/keys',
    });
    expect(
      problemsOf({ DATA_DIR: freshDataDir(), GOOGLE_CLIENT_ID: 'id.apps.googleusercontent.com' }),
    ).toEqual([
      'GOOGLE_CLIENT_SECRET: required with GOOGLE_CLIENT_ID (the code exchange needs it)',
    ]);
  });

  describe('in production', () => {
    const production = (env: Record<string, string>) => ({
      NODE_ENV: 'production',
      DATA_DIR: freshDataDir(),
      TOKEN_SECRET: randomBytes(48).toString('base64'),
      PUBLIC_URL: 'https://app.example.com',
      SMTP_URL: 'smtps://mailer:secret@smtp.example.com:465',
      STRIPE_SECRET_KEY: 'sk_live_abc123',
      STRIPE_WEBHOOK_SECRET: 'whsec_abc123',
      ...env,
    });

    it.each([
      ['one repeated letter', 'x'.repeat(48)],
      ['a short block repeated', 'ab'.repeat(24)],
      ['a word repeated', 'changeme'.repeat(6)],
    ])('refuses a TOKEN_SECRET that is %s, without printing it', (_shape, secret) => {
      const problems = problemsOf(production({ TOKEN_SECRET: secret }));
      expect(problems).toEqual([
        'TOKEN_SECRET: too predictable: use at least 128 random bits, e.g. openssl rand -base64 48',
      ]);
      expect(problems.join('')).not.toContain(secret.slice(0, 8));
    });

    it.each([
      ['openssl rand -base64 48', randomBytes(48).toString('base64')],
      ['openssl rand -hex 32', randomBytes(32).toString('hex')],
      ['a long passphrase', 'correct horse battery staple, then seven more: mulberry ox quartz'],
    ])('accepts a TOKEN_SECRET made by %s', (_how, secret) => {
      expect(loadConfig(production({ TOKEN_SECRET: secret })).tokenSecret).toBe(secret);
    });

    it('refuses a PUBLIC_URL that is not https', () => {
      expect(problemsOf(production({ PUBLIC_URL: 'http://app.example.com' }))).toEqual([
        'PUBLIC_URL: must be https in production (tokens and emailed codes would travel in clear)',
      ]);
    });

    it('takes any http(s) PUBLIC_URL and any TOKEN_SECRET of 32 characters outside production', () => {
      const config = loadConfig({
        DATA_DIR: freshDataDir(),
        PUBLIC_URL: 'http://192.168.1.20:3000',
        TOKEN_SECRET: 'x'.repeat(32),
      });
      expect(config.publicUrl).toBe('http://192.168.1.20:3000');
    });
  });

  describe('SMTP_URL', () => {
    it('requires TLS: smtps://, or STARTTLS on smtp://, unless SMTP_ALLOW_INSECURE=true', () => {
      const dataDir = freshDataDir();
      const starttls = loadConfig({
        DATA_DIR: dataDir,
        SMTP_URL: 'smtp://u:p@smtp.example.com:587',
      });
      expect(starttls.mail.requireTls).toBe(true);
      const tls = loadConfig({ DATA_DIR: dataDir, SMTP_URL: 'smtps://u:p@smtp.example.com:465' });
      expect(tls.mail.requireTls).toBe(true);
      const insecure = loadConfig({
        DATA_DIR: dataDir,
        SMTP_URL: 'smtp://relay.internal:25',
        SMTP_ALLOW_INSECURE: 'true',
      });
      expect(insecure.mail.requireTls).toBe(false);
    });

    it('lets a mail catcher on this machine go without TLS in development only', () => {
      const dataDir = freshDataDir();
      const catcher = { DATA_DIR: dataDir, SMTP_URL: 'smtp://localhost:1025' };
      expect(loadConfig(catcher).mail.requireTls).toBe(false);
      expect(loadConfig({ ...catcher, SMTP_ALLOW_INSECURE: 'false' }).mail.requireTls).toBe(true);
      expect(
        loadConfig({ DATA_DIR: dataDir, SMTP_URL: 'smtp://mail.example.com:587' }).mail.requireTls,
      ).toBe(true);
    });

    it('names SMTP_ALLOW_INSECURE when it is not true or false', () => {
      expect(problemsOf({ DATA_DIR: freshDataDir(), SMTP_ALLOW_INSECURE: 'yes' })).toEqual([
        'SMTP_ALLOW_INSECURE: must be true or false (got "yes")',
      ]);
    });
  });
});

describe('the App Store Server API key (APPLE_ISSUER_ID, APPLE_KEY_ID, APPLE_PRIVATE_KEY_PATH)', () => {
  const ISSUER_ID = '57246542-96fe-1a63-e053-0824d011072a';
  const KEY_ID = '2X9R4HXF34';
  /** The server's App Store settings, trusting a root the sandbox made. */
  let appStore: Record<string, string>;
  let sandbox: AppStoreSandbox;
  beforeAll(async () => {
    sandbox = await startTestAppStoreSandbox();
    appStore = appStoreEnv(sandbox);
  });
  afterAll(() => sandbox.close());

  /** A key file in a fresh directory: what App Store Connect's .p8 download holds by default. */
  function keyFile(content: string = p256Pkcs8()): string {
    const file = path.join(freshDataDir(), 'AuthKey.p8');
    writeFileSync(file, content);
    return file;
  }
  function p256Pkcs8(): string {
    return generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
  }
  function withKey(extra: Record<string, string> = {}): Record<string, string> {
    return {
      DATA_DIR: freshDataDir(),
      ...appStore,
      APPLE_ISSUER_ID: ISSUER_ID,
      APPLE_KEY_ID: KEY_ID,
      APPLE_PRIVATE_KEY_PATH: keyFile(),
      ...extra,
    };
  }
  function serverApiOf(env: Record<string, string>) {
    const config = loadConfig(env);
    if (typeof config.appStore !== 'object') throw new Error('expected the App Store to be on');
    return config.appStore.serverApi;
  }

  it("reads the key and asks Apple's hosts, or APPLE_API_BASE_URL when set", () => {
    const pem = p256Pkcs8();
    const file = keyFile(pem);
    expect(serverApiOf(withKey({ APPLE_PRIVATE_KEY_PATH: file }))).toEqual({
      issuerId: ISSUER_ID,
      keyId: KEY_ID,
      privateKey: pem,
      baseUrl: undefined,
    });
    expect(serverApiOf(withKey({ APPLE_API_BASE_URL: 'http://127.0.0.1:4010/' }))?.baseUrl).toBe(
      'http://127.0.0.1:4010',
    );
  });

  it('is off without the three', () => {
    expect(serverApiOf({ DATA_DIR: freshDataDir(), ...appStore })).toBeUndefined();
  });

  it('wants all three together, naming each one missing', () => {
    expect(problemsOf({ DATA_DIR: freshDataDir(), ...appStore, APPLE_KEY_ID: KEY_ID })).toEqual([
      'APPLE_ISSUER_ID: required with APPLE_KEY_ID (the App Store Server API key is the issuer id, the key id and the .p8 key file together)',
      'APPLE_PRIVATE_KEY_PATH: required with APPLE_KEY_ID (the App Store Server API key is the issuer id, the key id and the .p8 key file together)',
    ]);
    expect(
      problemsOf({
        DATA_DIR: freshDataDir(),
        ...appStore,
        APPLE_ISSUER_ID: ISSUER_ID,
        APPLE_PRIVATE_KEY_PATH: keyFile(),
      }),
    ).toEqual([
      'APPLE_KEY_ID: required with APPLE_ISSUER_ID and APPLE_PRIVATE_KEY_PATH (the App Store Server API key is the issuer id, the key id and the .p8 key file together)',
    ]);
  });

  it('names a key file that cannot be read, or is not an EC P-256 key in PKCS#8', () => {
    const missing = path.join(freshDataDir(), 'AuthKey_missing.p8');
    expect(problemsOf(withKey({ APPLE_PRIVATE_KEY_PATH: missing }))[0]).toMatch(
      new RegExp(`^APPLE_PRIVATE_KEY_PATH: cannot read ${missing}: ENOENT`),
    );
    const notKeys = {
      'not a key': 'hello',
      'an RSA key': generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString(),
      'a P-384 key': generateKeyPairSync('ec', { namedCurve: 'P-384' })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString(),
      'a P-256 key in SEC1, not PKCS#8': generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .privateKey.export({ type: 'sec1', format: 'pem' })
        .toString(),
      'a public key': generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .publicKey.export({ type: 'spki', format: 'pem' })
        .toString(),
    };
    for (const [what, content] of Object.entries(notKeys)) {
      const file = keyFile(content);
      expect({ what, problems: problemsOf(withKey({ APPLE_PRIVATE_KEY_PATH: file })) }).toEqual({
        what,
        problems: [
          `APPLE_PRIVATE_KEY_PATH: ${file} is not an EC P-256 private key in PKCS#8 PEM (the .p8 file App Store Connect gives)`,
        ],
      });
    }
  });

  it('names an issuer id or key id of the wrong shape', () => {
    expect(problemsOf(withKey({ APPLE_ISSUER_ID: 'my-team', APPLE_KEY_ID: 'key 1' }))).toEqual([
      'APPLE_ISSUER_ID: must be the issuer id of App Store Connect\'s keys page, a UUID such as 57246542-96fe-1a63-e053-0824d011072a (got "my-team")',
      'APPLE_KEY_ID: must be the key\'s 10-character id, such as 2X9R4HXF34 (got "key 1")',
    ]);
  });

  it('wants APPLE_BUNDLE_ID with the key, and the key with APPLE_API_BASE_URL', () => {
    const { APPLE_BUNDLE_ID, APPLE_ROOT_CERTIFICATES, APPLE_APP_APPLE_ID, ...withoutApp } =
      withKey();
    expect([APPLE_BUNDLE_ID, APPLE_ROOT_CERTIFICATES, APPLE_APP_APPLE_ID]).not.toContain(undefined);
    expect(problemsOf(withoutApp)).toEqual([
      'APPLE_BUNDLE_ID: required with APPLE_ISSUER_ID (each App Store Server API call names the app; unset the key for the App Store sandbox)',
    ]);
    expect(
      problemsOf({
        DATA_DIR: freshDataDir(),
        ...appStore,
        APPLE_API_BASE_URL: 'http://127.0.0.1:4010',
      }),
    ).toEqual([
      'APPLE_API_BASE_URL: needs APPLE_ISSUER_ID, APPLE_KEY_ID and APPLE_PRIVATE_KEY_PATH (the calls it would receive are signed with that key)',
    ]);
  });

  it('wants APPLE_API_BASE_URL to be https in production', () => {
    expect(
      problemsOf(
        withKey({ NODE_ENV: 'production', APPLE_API_BASE_URL: 'http://apple-stand-in:4010' }),
      ).filter((problem) => problem.startsWith('APPLE_API_BASE_URL')),
    ).toEqual(['APPLE_API_BASE_URL: must be https in production']);
  });
});

describe('the refund preference sent to Apple (APPLE_REFUND_PREFERENCE)', () => {
  const preferenceOf = (value?: string) =>
    loadConfig({
      DATA_DIR: freshDataDir(),
      ...(value === undefined ? {} : { APPLE_REFUND_PREFERENCE: value }),
    }).appleRefundPreference;

  it('is none by default, and reads each choice', () => {
    expect(preferenceOf()).toEqual({ kind: 'none' });
    expect(preferenceOf('none')).toEqual({ kind: 'none' });
    expect(preferenceOf('decline-past:50')).toEqual({ kind: 'decline-past', usedPercent: 50 });
    expect(preferenceOf('decline-past:12.5')).toEqual({
      kind: 'decline-past',
      usedPercent: 12.5,
    });
    expect(preferenceOf('grant-prorated')).toEqual({ kind: 'grant-prorated' });
  });

  it.each(['decline', 'decline-past:', 'decline-past:101', 'decline-past:-5', 'GRANT_FULL', 'yes'])(
    'refuses %s with one line that names the choices',
    (value) => {
      expect(problemsOf({ DATA_DIR: freshDataDir(), APPLE_REFUND_PREFERENCE: value })).toEqual([
        `APPLE_REFUND_PREFERENCE: must be none, decline-past:<percent of the period used, 0 to 100> (e.g. decline-past:50) or grant-prorated (got "${value}")`,
      ]);
    },
  );
});
