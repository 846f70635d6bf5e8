// A passkey sign-in is complete by itself: with two-step sign-in on, the password stops at the
// code step, the passkey does not (docs/decisions/017-passkeys.md). And it shows in the history.
// So while two-step sign-in is on, adding a passkey takes a current code.
import type { TokenPair } from '@kegel/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { getProfile, post, registerAndLogin } from '../support/accounts';
import {
  addPasskey,
  createPasskeyAuthenticator,
  registrationOptions,
  signInWithPasskey,
} from '../support/passkey-authenticator';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import {
  appCode,
  passwordStep,
  turnOnTwoStep,
  useMovableClock,
  waitForNextCode,
  wrongCodeFor,
} from '../support/two-step';

describe.each(testDatabaseKinds)('passkeys and two-step sign-in on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  it('signs in with a passkey at once, where a password must still give the code', async () => {
    const email = uniqueEmail('passkey-two-step');
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    const authenticator = createPasskeyAuthenticator();
    await addPasskey(server.app, tokens.accessToken, authenticator);
    await turnOnTwoStep(server.app, tokens.accessToken);

    await passwordStep(server.app, email, 'correct horse');
    const response = await signInWithPasskey(server.app, authenticator);
    expect(response.statusCode, response.body).toBe(200);
    const signedIn = response.json<TokenPair>();
    expect(Object.keys(signedIn).sort()).toEqual(['accessToken', 'refreshToken']);
    expect((await getProfile(server.app, signedIn.accessToken)).statusCode).toBe(200);

    const history = await server.app.inject({
      method: 'GET',
      url: '/api/users/sign-ins',
      headers: { authorization: `Bearer ${signedIn.accessToken}` },
    });
    expect(history.statusCode, history.body).toBe(200);
    expect(history.json<{ data: Array<{ method: string }> }>().data[0]?.method).toBe('passkey');
  });

  it('with two-step sign-in on, a session cannot add a passkey (a way in with no code) without a code', async () => {
    useMovableClock();
    const email = uniqueEmail('review-add-passkey');
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    const { secret } = await turnOnTwoStep(server.app, tokens.accessToken);
    // Whoever holds this session (a stolen token, an unlocked laptop) adds his own passkey.
    const thiefsKey = createPasskeyAuthenticator();
    const asked = await post(server.app, '/auth/passkeys/register/options', {}, tokens.accessToken);
    expect(asked.statusCode, asked.body).toBe(400);
    const wrong = await post(
      server.app,
      '/auth/passkeys/register/options',
      { code: wrongCodeFor(secret) },
      tokens.accessToken,
    );
    expect(wrong.statusCode, wrong.body).toBe(400);
    // Nor with the options of an account of his own: the challenge is bound to that one.
    const thief = await registerAndLogin(server.app, uniqueEmail('thief'), 'correct horse');
    const options = await registrationOptions(server.app, thief.accessToken);
    const added = await post(
      server.app,
      '/auth/passkeys/register/verify',
      { response: thiefsKey.register(options) },
      tokens.accessToken,
    );
    expect(added.statusCode, added.body).toBe(400);
    expect((await signInWithPasskey(server.app, thiefsKey)).statusCode).toBe(401);
  });

  it('with two-step sign-in on, the owner adds a passkey with a current code', async () => {
    useMovableClock();
    const email = uniqueEmail('passkey-add-with-code');
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    const { secret } = await turnOnTwoStep(server.app, tokens.accessToken);
    waitForNextCode(); // the code that turned it on took this step's
    const authenticator = createPasskeyAuthenticator();
    const options = await registrationOptions(server.app, tokens.accessToken, appCode(secret));
    const added = await post(
      server.app,
      '/auth/passkeys/register/verify',
      { response: authenticator.register(options) },
      tokens.accessToken,
    );
    expect(added.statusCode, added.body).toBe(201);
    expect((await signInWithPasskey(server.app, authenticator)).statusCode).toBe(200);
  });
});
