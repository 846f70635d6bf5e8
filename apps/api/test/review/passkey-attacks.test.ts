// Adversarial review of passkeys (ADR 017): replays, borrowed and stale challenges, a cloned
// authenticator, another member's passkey, and the last way in. Each test would fail if its
// attack worked; all hold today.
import type { PasskeyItem } from '@kegel/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { post, postFrom, register, registerAndLogin } from '../support/accounts';
import {
  addPasskey,
  createPasskeyAuthenticator,
  registrationOptions,
  signInOptions,
} from '../support/passkey-authenticator';
import { linkIn, startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const PASSWORD = 'correct horse';
const FIREFOX_ON_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

describe.each(testDatabaseKinds)('review: passkeys under attack on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  let nextAddress = 1;
  /** Each test's failures from an address of its own: the per-address budget stays out of it. */
  const freshAddress = () => `192.0.2.${nextAddress++}`;

  const verifyFrom = (address: string, response: unknown) =>
    postFrom(server.app, address, '/auth/passkeys/login/verify', { response });

  it('refuses a replayed answer, a registration challenge, an expired one and a counter rollback', async () => {
    const tokens = await registerAndLogin(server.app, uniqueEmail('review-pk-replay'), PASSWORD);
    const key = createPasskeyAuthenticator({ counter: 10 });
    await addPasskey(server.app, tokens.accessToken, key);
    const address = freshAddress();

    const answer = key.signIn(await signInOptions(server.app));
    expect((await verifyFrom(address, answer)).statusCode).toBe(200);
    expect((await verifyFrom(address, answer)).statusCode).toBe(401);

    // A challenge handed out to add a passkey, signed as a sign-in.
    const creation = await registrationOptions(server.app, tokens.accessToken);
    const withRegisterChallenge = key.signIn(await signInOptions(server.app), {
      challenge: creation.challenge,
    });
    expect((await verifyFrom(address, withRegisterChallenge)).statusCode).toBe(401);

    const stale = await signInOptions(server.app);
    await server.app.database.db
      .updateTable('passkeyChallenges')
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where('purpose', '=', 'login')
      .execute();
    expect((await verifyFrom(address, key.signIn(stale))).statusCode).toBe(401);

    // A clone of the authenticator, its counter behind the real one's.
    const cloned = key.signIn(await signInOptions(server.app), { counter: 5 });
    expect((await verifyFrom(address, cloned)).statusCode).toBe(401);
    expect(
      (await verifyFrom(freshAddress(), key.signIn(await signInOptions(server.app)))).statusCode,
    ).toBe(200);
  });

  it("answers 404 to renaming or removing another member's passkey, and leaves it be", async () => {
    const owner = await registerAndLogin(server.app, uniqueEmail('review-pk-owner'), PASSWORD);
    const other = await registerAndLogin(server.app, uniqueEmail('review-pk-other'), PASSWORD);
    const key = createPasskeyAuthenticator();
    const added = await addPasskey(server.app, owner.accessToken, key, 'Mine');
    const renamed = await server.app.inject({
      method: 'PATCH',
      url: `/api/users/passkeys/${added.id}`,
      headers: { authorization: `Bearer ${other.accessToken}` },
      payload: { name: 'Yours now' },
    });
    expect(renamed.statusCode).toBe(404);
    const removed = await server.app.inject({
      method: 'DELETE',
      url: `/api/users/passkeys/${added.id}`,
      headers: { authorization: `Bearer ${other.accessToken}` },
      payload: {},
    });
    expect(removed.statusCode).toBe(404);
    const listed = await server.app.inject({
      method: 'GET',
      url: '/api/users/passkeys',
      headers: { authorization: `Bearer ${owner.accessToken}` },
    });
    expect(listed.json<{ data: PasskeyItem[] }>().data.map((item) => item.name)).toEqual(['Mine']);
  });

  it("keeps the last way in after 'This wasn't me' cleared the password: the only passkey stays", async () => {
    const email = uniqueEmail('review-pk-last');
    await register(server.app, email, PASSWORD);
    const home = await post(server.app, '/auth/local/login/email', { email, password: PASSWORD });
    const key = createPasskeyAuthenticator();
    const added = await addPasskey(
      server.app,
      home.json<{ accessToken: string }>().accessToken,
      key,
    );
    await server.app.inject({
      method: 'POST',
      url: '/api/auth/local/login/email',
      headers: { 'user-agent': FIREFOX_ON_WINDOWS },
      remoteAddress: '198.51.100.77',
      payload: { email, password: PASSWORD },
    });
    const notice = await server.inbox.waitFor(
      (mail) =>
        mail.to.includes(email) && mail.subject === 'New sign-in to your Kegel Coach account',
    );
    const reported = await post(server.app, '/auth/sign-ins/not-me', {
      code: linkIn(notice).searchParams.get('code'),
    });
    expect(reported.statusCode, reported.body).toBe(200);
    // No password now: the passkey is the way in until the reset, and cannot be removed.
    const signedIn = await verifyFrom(freshAddress(), key.signIn(await signInOptions(server.app)));
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    const removed = await server.app.inject({
      method: 'DELETE',
      url: `/api/users/passkeys/${added.id}`,
      headers: { authorization: `Bearer ${signedIn.json<{ accessToken: string }>().accessToken}` },
      payload: {},
    });
    expect(removed.statusCode, removed.body).toBe(409);
  });
});
