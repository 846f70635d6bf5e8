// A passkey sign-in is complete by itself: with two-step sign-in on, the password stops at the
// code step, the passkey does not (docs/decisions/017-passkeys.md). And it shows in the history.
import type { TokenPair } from '@kegel/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { getProfile, registerAndLogin } from '../support/accounts';
import {
  addPasskey,
  createPasskeyAuthenticator,
  signInWithPasskey,
} from '../support/passkey-authenticator';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { passwordStep, turnOnTwoStep } from '../support/two-step';

describe.each(testDatabaseKinds)('passkeys and two-step sign-in on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

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
});
