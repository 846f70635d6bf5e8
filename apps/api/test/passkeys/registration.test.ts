import type { DataExport, PasskeyCreationOptions, PasskeysResponse } from '@kegel/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { login, post, registerAndLogin } from '../support/accounts';
import {
  addPasskey,
  createPasskeyAuthenticator,
  registrationOptions,
} from '../support/passkey-authenticator';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const CHROME_ON_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** Adding passkeys in Account Settings: the options, the checks of the answer, the list. */
describe.each(testDatabaseKinds)('adding a passkey on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const member = () => registerAndLogin(server.app, uniqueEmail('passkeys'), 'correct horse');

  function verify(accessToken: string, payload: unknown, userAgent?: string) {
    return server.app.inject({
      method: 'POST',
      url: '/api/auth/passkeys/register/verify',
      payload: payload as Record<string, unknown>,
      headers: {
        authorization: `Bearer ${accessToken}`,
        ...(userAgent ? { 'user-agent': userAgent } : {}),
      },
    });
  }

  async function passkeysOf(accessToken: string) {
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/users/passkeys',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<PasskeysResponse>().data;
  }

  const registrationRefused = {
    statusCode: 400,
    error: 'Bad Request',
    message: 'The passkey could not be added. Please try again.',
  };

  it('needs a signed-in member', async () => {
    const response = await post(server.app, '/auth/passkeys/register/options', {});
    expect(response.statusCode).toBe(401);
  });

  it('offers options for a discoverable passkey on the relying party of PUBLIC_URL', async () => {
    const { accessToken } = await member();
    const options = await registrationOptions(server.app, accessToken);
    expect(options.rp).toEqual({ name: 'Kegel Coach', id: 'kegel.test' });
    expect(options.user.name).toMatch(/^passkeys\./);
    expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(options.attestation).toBe('none');
    expect(options.authenticatorSelection).toMatchObject({
      residentKey: 'required',
      userVerification: 'preferred',
    });
    expect(options.excludeCredentials).toEqual([]);
    expect(options.timeout).toBe(5 * 60 * 1000);
  });

  it('adds the passkey, named after the browser, and lists it without its key', async () => {
    const { accessToken } = await member();
    const authenticator = createPasskeyAuthenticator({ synced: true });
    const options = await registrationOptions(server.app, accessToken);
    const added = await verify(
      accessToken,
      { response: authenticator.register(options) },
      CHROME_ON_MAC,
    );
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json()).toEqual({
      id: expect.any(String),
      name: 'Chrome on macOS',
      createdAt: expect.any(String),
      lastUsedAt: null,
      isSynced: true,
    });
    expect(await passkeysOf(accessToken)).toEqual([added.json()]);
    // Stored as WebAuthn needs it: counter, backup state and transports.
    const [row] = await server.app.database.db
      .selectFrom('passkeys')
      .select(['credentialId', 'counter', 'deviceType', 'backedUp', 'transports'])
      .where('id', '=', added.json<{ id: string }>().id)
      .execute();
    expect(row).toEqual({
      credentialId: authenticator.id,
      counter: expect.anything(),
      deviceType: 'multiDevice',
      backedUp: true,
      transports: ['internal', 'hybrid'],
    });
  });

  it('tells the owner by email that a passkey was added, with its name', async () => {
    const email = uniqueEmail('passkey-notice');
    const { accessToken } = await registerAndLogin(server.app, email, 'correct horse');
    await addPasskey(server.app, accessToken, createPasskeyAuthenticator(), 'Borrowed laptop');
    const notice = await server.inbox.waitFor(
      (mail) => mail.to.includes(email) && mail.subject.includes('passkey was added'),
    );
    expect(notice.subject).toBe('A passkey was added to your Kegel Coach account');
    expect(notice.text).toContain('"Borrowed laptop"');
    expect(notice.text).toContain('https://kegel.test/dashboard/settings');
  });

  it('takes the name given, trimmed, and refuses an empty or overlong one', async () => {
    const { accessToken } = await member();
    const named = await addPasskey(
      server.app,
      accessToken,
      createPasskeyAuthenticator(),
      '  YubiKey  ',
    );
    expect(named.name).toBe('YubiKey');
    const options = await registrationOptions(server.app, accessToken);
    const response = createPasskeyAuthenticator().register(options);
    expect((await verify(accessToken, { response, name: ' ' })).statusCode).toBe(400);
    expect((await verify(accessToken, { response, name: 'x'.repeat(65) })).statusCode).toBe(400);
  });

  it("excludes the member's passkeys from the next registration", async () => {
    const { accessToken } = await member();
    const first = createPasskeyAuthenticator({ transports: ['usb'] });
    await addPasskey(server.app, accessToken, first);
    const options = await registrationOptions(server.app, accessToken);
    expect(options.excludeCredentials).toEqual([
      { id: first.id, type: 'public-key', transports: ['usb'] },
    ]);
  });

  it('uses a challenge once: the same answer again is refused', async () => {
    const { accessToken } = await member();
    const options = await registrationOptions(server.app, accessToken);
    const response = createPasskeyAuthenticator().register(options);
    expect((await verify(accessToken, { response })).statusCode).toBe(201);
    const replay = await verify(accessToken, { response });
    expect(replay.json()).toEqual(registrationRefused);
    expect(await passkeysOf(accessToken)).toHaveLength(1);
  });

  it('uses a challenge once even when two answers race', async () => {
    const { accessToken } = await member();
    const options = await registrationOptions(server.app, accessToken);
    const answers = [createPasskeyAuthenticator(), createPasskeyAuthenticator()].map((device) =>
      device.register(options),
    );
    const results = await Promise.all(answers.map((response) => verify(accessToken, { response })));
    expect(results.map((result) => result.statusCode).sort()).toEqual([201, 400]);
  });

  it('refuses a challenge after its 5 minutes', async () => {
    const { accessToken } = await member();
    const options = await registrationOptions(server.app, accessToken);
    await server.app.database.db
      .updateTable('passkeyChallenges')
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .execute();
    const response = createPasskeyAuthenticator().register(options);
    expect((await verify(accessToken, { response })).json()).toEqual(registrationRefused);
  });

  it('binds the challenge to the member and the session that asked for it', async () => {
    const email = uniqueEmail('bound');
    const here = await registerAndLogin(server.app, email, 'correct horse');
    const otherSession = await login(server.app, email, 'correct horse');
    const stranger = await member();
    const options = await registrationOptions(server.app, here.accessToken);
    const response = createPasskeyAuthenticator().register(options);
    expect((await verify(otherSession.accessToken, { response })).json()).toEqual(
      registrationRefused,
    );
    expect((await verify(stranger.accessToken, { response })).json()).toEqual(registrationRefused);
    // Neither spent it: the session that asked still can.
    expect((await verify(here.accessToken, { response })).statusCode).toBe(201);
  });

  it("refuses a sign-in challenge, another site's answer and another relying party's", async () => {
    const { accessToken } = await member();
    const signInChallenge = (
      await post(server.app, '/auth/passkeys/login/options', {})
    ).json<PasskeyCreationOptions>().challenge;
    const options = await registrationOptions(server.app, accessToken);
    const device = createPasskeyAuthenticator();
    for (const answer of [
      { challenge: signInChallenge },
      { origin: 'https://kegel.test.evil.example' },
      { rpId: 'evil.example' },
    ]) {
      const refused = await verify(accessToken, { response: device.register(options, answer) });
      expect(refused.json()).toEqual(registrationRefused);
    }
  });

  it('refuses a passkey already added, to this account or another (409)', async () => {
    const device = createPasskeyAuthenticator();
    const first = await member();
    await addPasskey(server.app, first.accessToken, device);
    const second = await member();
    const options = await registrationOptions(server.app, second.accessToken);
    const again = await verify(second.accessToken, { response: device.register(options) });
    expect(again.json()).toEqual({
      statusCode: 409,
      error: 'Conflict',
      message: 'This passkey is already added to an account.',
    });
  });

  it('puts the passkeys in the data export, never their keys', async () => {
    const { accessToken } = await member();
    const device = createPasskeyAuthenticator({ transports: ['usb', 'nfc'] });
    await addPasskey(server.app, accessToken, device, 'Desk key');
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/users/export',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    const data = response.json<DataExport>();
    expect(data.passkeys).toEqual([
      {
        name: 'Desk key',
        createdAt: expect.any(String),
        lastUsedAt: null,
        transports: ['usb', 'nfc'],
      },
    ]);
    const { publicKey } = await server.app.database.db
      .selectFrom('passkeys')
      .select('publicKey')
      .where('credentialId', '=', device.id)
      .executeTakeFirstOrThrow();
    expect(response.body).not.toContain(publicKey);
    expect(response.body).not.toContain(device.id);
  });
});
