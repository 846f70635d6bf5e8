// Two-step sign-in in Account Settings, through HTTP: turning it on with an authenticator app,
// the recovery codes, turning it off, and what the profile and the data export say.
import { twoStepMessages, type TokenPair } from '@kegel/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { getProfile, login, post, registerAndLogin } from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import {
  appCode,
  confirmTwoStep,
  passwordStep,
  setUpTwoStep,
  turnOnTwoStep,
  useMovableClock,
  verifySignIn,
  waitForNextCode,
  wrongCodeFor,
} from '../support/two-step';

const PASSWORD = 'correct horse';

describe.each(testDatabaseKinds)('two-step sign-in settings on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());
  beforeEach(() => useMovableClock());
  afterEach(() => vi.useRealTimers());

  async function member(label: string): Promise<TokenPair & { email: string }> {
    const email = uniqueEmail(label);
    return { email, ...(await registerAndLogin(server.app, email, PASSWORD)) };
  }

  async function twoStepEnabled(accessToken: string): Promise<boolean> {
    const profile = await getProfile(server.app, accessToken);
    expect(profile.statusCode, profile.body).toBe(200);
    return profile.json<{ twoStepEnabled: boolean }>().twoStepEnabled;
  }

  it('shows a secret and its otpauth URL, and stays off until a code confirms it', async () => {
    const { email, accessToken } = await member('setup');
    const setup = await setUpTwoStep(server.app, accessToken);
    expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(setup.otpauthUrl);
    expect(url.protocol).toBe('otpauth:');
    expect(url.searchParams.get('secret')).toBe(setup.secret);
    expect(url.searchParams.get('issuer')).toBe('Kegel Coach');
    expect(decodeURIComponent(url.pathname)).toContain(email);
    expect(await twoStepEnabled(accessToken)).toBe(false);
    // Unconfirmed, it asks nothing at sign-in.
    expect(await login(server.app, email, PASSWORD)).toHaveProperty('accessToken');
  });

  it('refuses a wrong code, then turns on with the right one and answers ten recovery codes', async () => {
    const { accessToken } = await member('confirm');
    const { secret } = await setUpTwoStep(server.app, accessToken);
    const wrong = await confirmTwoStep(server.app, accessToken, wrongCodeFor(secret));
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ message: twoStepMessages.wrongCode });
    expect(await twoStepEnabled(accessToken)).toBe(false);

    const confirmed = await confirmTwoStep(server.app, accessToken, appCode(secret));
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.headers['cache-control']).toBe('no-store');
    const { recoveryCodes } = confirmed.json<{ recoveryCodes: string[] }>();
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[0-9a-z]{4}(-[0-9a-z]{4}){3}$/);
    expect(await twoStepEnabled(accessToken)).toBe(true);
  });

  it('lets a new setup replace one not yet confirmed, and refuses one while it is on (409)', async () => {
    const { accessToken } = await member('replace');
    const first = await setUpTwoStep(server.app, accessToken);
    const second = await setUpTwoStep(server.app, accessToken);
    expect(second.secret).not.toBe(first.secret);
    const withOld = await confirmTwoStep(server.app, accessToken, appCode(first.secret));
    expect(withOld.statusCode).toBe(400);
    expect((await confirmTwoStep(server.app, accessToken, appCode(second.secret))).statusCode).toBe(
      200,
    );
    const again = await post(server.app, '/auth/mfa/totp/setup', {}, accessToken);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ message: twoStepMessages.alreadyOn });
  });

  it('keeps the secret sealed and only hashes of the recovery codes', async () => {
    const { accessToken, email } = await member('at-rest');
    const { secret, recoveryCodes } = await turnOnTwoStep(server.app, accessToken);
    const db = server.app.database.db;
    const user = await db
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    const stored = await db
      .selectFrom('twoStepAuthenticators')
      .selectAll()
      .where('userId', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(stored.sealedSecret).not.toContain(secret);
    expect(stored.sealedSecret.length).toBeGreaterThan(secret.length);
    const codes = await db
      .selectFrom('twoStepRecoveryCodes')
      .select('codeHash')
      .where('userId', '=', user.id)
      .execute();
    expect(codes).toHaveLength(10);
    const hashes = codes.map((row) => row.codeHash).join(' ');
    for (const code of recoveryCodes) {
      expect(hashes).not.toContain(code);
      expect(hashes).not.toContain(code.replace(/-/g, ''));
    }
  });

  it('keeps the sessions open before it was turned on: they renew and read the profile', async () => {
    const { email, accessToken } = await member('before');
    const otherDevice = await login(server.app, email, PASSWORD);
    await turnOnTwoStep(server.app, accessToken);
    const renewed = await post(server.app, '/auth/refresh', {
      refreshToken: otherDevice.refreshToken,
    });
    expect(renewed.statusCode, renewed.body).toBe(200);
    const pair = renewed.json<TokenPair>();
    expect(await twoStepEnabled(pair.accessToken)).toBe(true);
  });

  it('turns off with a current code, and sign-in asks for none after', async () => {
    const { email, accessToken } = await member('off-code');
    const { secret } = await turnOnTwoStep(server.app, accessToken);
    waitForNextCode();
    const wrong = await post(
      server.app,
      '/auth/mfa/totp/disable',
      { code: wrongCodeFor(secret) },
      accessToken,
    );
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ message: twoStepMessages.wrongCode });
    const off = await post(
      server.app,
      '/auth/mfa/totp/disable',
      { code: appCode(secret) },
      accessToken,
    );
    expect(off.statusCode, off.body).toBe(200);
    expect(await twoStepEnabled(accessToken)).toBe(false);
    expect(await login(server.app, email, PASSWORD)).toHaveProperty('accessToken');
    const again = await post(server.app, '/auth/mfa/totp/disable', { code: '123456' }, accessToken);
    expect(again.statusCode).toBe(409);
  });

  it('turns off with a recovery code, typed in capitals and without dashes', async () => {
    const { accessToken } = await member('off-recovery');
    const { recoveryCodes } = await turnOnTwoStep(server.app, accessToken);
    const typed = recoveryCodes[3]!.replace(/-/g, '').toUpperCase();
    const off = await post(
      server.app,
      '/auth/mfa/totp/disable',
      { recoveryCode: typed },
      accessToken,
    );
    expect(off.statusCode, off.body).toBe(200);
    expect(await twoStepEnabled(accessToken)).toBe(false);
  });

  it('asks for exactly one of a code and a recovery code to turn off', async () => {
    const { accessToken } = await member('off-neither');
    await turnOnTwoStep(server.app, accessToken);
    const neither = await post(server.app, '/auth/mfa/totp/disable', {}, accessToken);
    expect(neither.statusCode).toBe(400);
    expect(await twoStepEnabled(accessToken)).toBe(true);
  });

  it('makes new recovery codes for a current code: the old ones stop working', async () => {
    const { email, accessToken } = await member('renew');
    const { secret, recoveryCodes: oldCodes } = await turnOnTwoStep(server.app, accessToken);
    waitForNextCode();
    const renewed = await post(
      server.app,
      '/auth/mfa/recovery-codes',
      { code: appCode(secret) },
      accessToken,
    );
    expect(renewed.statusCode, renewed.body).toBe(200);
    const newCodes = renewed.json<{ recoveryCodes: string[] }>().recoveryCodes;
    expect(newCodes).toHaveLength(10);
    expect(newCodes.some((code) => oldCodes.includes(code))).toBe(false);

    const withOld = await verifySignIn(server.app, {
      mfaToken: await passwordStep(server.app, email, PASSWORD),
      recoveryCode: oldCodes[0]!,
    });
    expect(withOld.statusCode).toBe(401);
    const withNew = await verifySignIn(server.app, {
      mfaToken: await passwordStep(server.app, email, PASSWORD),
      recoveryCode: newCodes[0]!,
    });
    expect(withNew.statusCode, withNew.body).toBe(200);
  });

  it('says in the data export whether it is on, never the secret or the codes', async () => {
    const { accessToken } = await member('export');
    const exportData = async () => {
      const response = await server.app.inject({
        method: 'GET',
        url: '/api/users/export',
        headers: { authorization: `Bearer ${accessToken}` },
      });
      expect(response.statusCode, response.body).toBe(200);
      return response;
    };
    expect((await exportData()).json()).toMatchObject({ profile: { twoStepEnabled: false } });
    const { secret, recoveryCodes } = await turnOnTwoStep(server.app, accessToken);
    const response = await exportData();
    expect(response.json()).toMatchObject({ profile: { twoStepEnabled: true } });
    expect(response.body).not.toContain(secret);
    for (const code of recoveryCodes) expect(response.body).not.toContain(code);
  });
});
