import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config';
import { login, post, registerAndLogin } from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const BREACHED = {
  statusCode: 400,
  error: 'Bad Request',
  message: 'This password has appeared in a data breach. Please choose another one.',
};
const BREACHED_PASSWORD = 'violet anchor drizzle';
const CLEAN_PASSWORD = 'amber quiet lantern';

function sha1(password: string): string {
  return createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
}

/**
 * A stand-in for the Pwned Passwords range API on loopback. It lists BREACHED_PASSWORD (and
 * padding lines with a count of 0, among them CLEAN_PASSWORD's suffix, as the real API pads),
 * or fails in the way a test asks.
 */
interface FakePwnedPasswords {
  url: string;
  /** The paths asked, oldest first. */
  requests: string[];
  mode: 'answer' | 'fail' | 'hang' | 'drop';
  close(): Promise<void>;
}

async function startFakePwnedPasswords(): Promise<FakePwnedPasswords> {
  const fake: Omit<FakePwnedPasswords, 'url' | 'close'> = { requests: [], mode: 'answer' };
  const server: Server = createServer((request, response) => {
    fake.requests.push(request.url ?? '');
    if (fake.mode === 'hang') return;
    if (fake.mode === 'drop') {
      request.socket.destroy();
      return;
    }
    if (fake.mode === 'fail') {
      response.writeHead(503).end('Service Unavailable');
      return;
    }
    const prefix = (request.url ?? '').replace('/range/', '');
    const lines = [`${'0'.repeat(35)}:0`];
    for (const [password, count] of [
      [BREACHED_PASSWORD, 3],
      [CLEAN_PASSWORD, 0],
    ] as const) {
      const hash = sha1(password);
      if (hash.startsWith(prefix)) lines.push(`${hash.slice(5)}:${count}`);
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end(lines.join('\r\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

describe.each(testDatabaseKinds)('Have I Been Pwned check on $name', (kind) => {
  let fake: FakePwnedPasswords;
  let server: TestServer;
  beforeAll(async () => {
    fake = await startFakePwnedPasswords();
    server = await startTestServer(kind, {
      env: { PWNED_PASSWORDS: 'on', PWNED_PASSWORDS_URL: fake.url },
      pwnedPasswordsTimeoutMs: 300,
    });
  });
  afterAll(async () => {
    await server.close();
    await fake.close();
  });
  beforeEach(() => {
    fake.mode = 'answer';
    fake.requests.length = 0;
  });

  const registerWith = (password: string) =>
    post(server.app, '/auth/local/register/email', {
      email: uniqueEmail('pwned'),
      password,
    });

  it('refuses a breached password, sending only the first five hex digits of its SHA-1', async () => {
    const response = await registerWith(BREACHED_PASSWORD);
    expect(response.json()).toEqual(BREACHED);
    expect(fake.requests).toEqual([`/range/${sha1(BREACHED_PASSWORD).slice(0, 5)}`]);
  });

  it('takes a password that is not listed, even when a padding line has its suffix', async () => {
    expect((await registerWith(CLEAN_PASSWORD)).statusCode).toBe(201);
  });

  it('refuses a breached new password on a change too', async () => {
    const email = uniqueEmail('pwned-change');
    const tokens = await registerAndLogin(server.app, email, CLEAN_PASSWORD);
    const response = await post(
      server.app,
      '/auth/change-password',
      { oldPassword: CLEAN_PASSWORD, newPassword: BREACHED_PASSWORD },
      tokens.accessToken,
    );
    expect(response.json()).toEqual(BREACHED);
    await login(server.app, email, CLEAN_PASSWORD);
  });

  it('asks only about passwords that are not common anyway', async () => {
    const response = await registerWith('password');
    expect(response.json()).toMatchObject({ statusCode: 400, message: expect.any(String) });
    expect(fake.requests).toEqual([]);
  });

  it.each(['fail', 'drop'] as const)(
    'takes the password when the service fails (%s): it never blocks a sign-up',
    async (mode) => {
      fake.mode = mode;
      expect((await registerWith(BREACHED_PASSWORD)).statusCode).toBe(201);
      expect(fake.requests).toHaveLength(1);
    },
  );

  it('takes the password when the service does not answer in time', async () => {
    fake.mode = 'hang';
    const started = Date.now();
    expect((await registerWith(BREACHED_PASSWORD)).statusCode).toBe(201);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('Have I Been Pwned settings', () => {
  // Every secret given, so nothing is generated into DATA_DIR.
  const base = {
    DATA_DIR: path.join(tmpdir(), 'kegel-pwned-settings'),
    TOKEN_SECRET: 'x'.repeat(32),
    STRIPE_WEBHOOK_SECRET: 'whsec_123',
  };
  const production = {
    ...base,
    NODE_ENV: 'production',
    TOKEN_SECRET: 'random-enough-for-production/9f3Kq7ZxWv2Lp8Rt',
    PUBLIC_URL: 'https://kegel.test',
    SMTP_URL: 'smtp://mail.test:587',
    STRIPE_SECRET_KEY: 'sk_test_123',
  };

  it('are on in production by default, against the real API, and can be turned off', () => {
    expect(loadConfig(production).pwnedPasswords).toEqual({
      url: 'https://api.pwnedpasswords.com',
    });
    expect(loadConfig({ ...production, PWNED_PASSWORDS: 'off' }).pwnedPasswords).toBe('off');
  });

  it('are off outside production unless asked for', () => {
    expect(existsSync(base.DATA_DIR)).toBe(false);
    expect(loadConfig({ ...base, NODE_ENV: 'development' }).pwnedPasswords).toBe('off');
    expect(loadConfig({ ...base, NODE_ENV: 'test' }).pwnedPasswords).toBe('off');
    expect(
      loadConfig({ ...base, PWNED_PASSWORDS: 'on', PWNED_PASSWORDS_URL: 'http://127.0.0.1:9/' })
        .pwnedPasswords,
    ).toEqual({ url: 'http://127.0.0.1:9' });
    expect(existsSync(base.DATA_DIR)).toBe(false);
  });

  it('refuse a plain http URL in production', () => {
    expect(() => loadConfig({ ...production, PWNED_PASSWORDS_URL: 'http://pwned.test' })).toThrow(
      'PWNED_PASSWORDS_URL: must be https in production',
    );
  });
});
