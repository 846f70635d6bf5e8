import type { PasskeyRequestOptions, SessionsResponse, TokenPair } from '@kegel/contract';
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { getProfile, post, postFrom } from '../support/accounts';
import {
  addPasskey,
  createPasskeyAuthenticator,
  type PasskeyAuthenticator,
  signInOptions,
  signInWithPasskey,
} from '../support/passkey-authenticator';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const SIGN_IN_FAILED = {
  statusCode: 401,
  error: 'Unauthorized',
  message: 'Passkey sign-in failed. Please try again.',
};

/** Signing in with a passkey: a whole sign-in, and every way an answer can be refused. */
describe.each(testDatabaseKinds)('signing in with a passkey on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { env: { AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR: '5' } });
  });
  afterAll(() => server.close());

  let nextAddress = 1;
  /** Each test from an address of its own: the attempts budgets are per address. */
  const freshAddress = () => `198.51.100.${nextAddress++}`;

  /** A member with a passkey, registered from an address of his own. */
  async function memberWithPasskey(authenticator = createPasskeyAuthenticator()) {
    const email = uniqueEmail('passkey-sign-in');
    const home = freshAddress();
    const credentials = { email, password: 'correct horse' };
    expect(
      (await postFrom(server.app, home, '/auth/local/register/email', credentials)).statusCode,
    ).toBe(201);
    const tokens = (
      await postFrom(server.app, home, '/auth/local/login/email', credentials)
    ).json<TokenPair>();
    await addPasskey(server.app, tokens.accessToken, authenticator);
    return { email, tokens, authenticator };
  }

  async function verifyFrom(
    address: string,
    authenticator: PasskeyAuthenticator,
    answer: Parameters<PasskeyAuthenticator['signIn']>[1] = {},
    options?: PasskeyRequestOptions,
  ) {
    const request = options ?? (await signInOptions(server.app));
    return postFrom(server.app, address, '/auth/passkeys/login/verify', {
      response: authenticator.signIn(request, answer),
    });
  }

  it('offers options for any passkey of the site: no allowCredentials, verification preferred', async () => {
    const options = await signInOptions(server.app);
    expect(options).toEqual({
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/),
      rpId: 'kegel.test',
      userVerification: 'preferred',
      timeout: 5 * 60 * 1000,
    });
  });

  it('signs in at once (no second step), in a session whose method is passkey', async () => {
    const { authenticator } = await memberWithPasskey();
    const response = await signInWithPasskey(server.app, authenticator);
    expect(response.statusCode, response.body).toBe(200);
    const tokens = response.json<TokenPair>();
    expect(Object.keys(tokens).sort()).toEqual(['accessToken', 'refreshToken']);
    expect((await getProfile(server.app, tokens.accessToken)).statusCode).toBe(200);
    const sessions = await server.app.inject({
      method: 'GET',
      url: '/api/users/sessions',
      headers: { authorization: `Bearer ${tokens.accessToken}` },
    });
    const current = sessions.json<SessionsResponse>().data.find((session) => session.current);
    expect(current?.method).toBe('passkey');
    const list = await server.app.inject({
      method: 'GET',
      url: '/api/users/passkeys',
      headers: { authorization: `Bearer ${tokens.accessToken}` },
    });
    expect(list.json<{ data: Array<{ lastUsedAt: string | null }> }>().data[0]?.lastUsedAt).toEqual(
      expect.any(String),
    );
  });

  it('uses a challenge once: the same answer again is refused', async () => {
    const { authenticator } = await memberWithPasskey();
    const address = freshAddress();
    const options = await signInOptions(server.app);
    const answer = { response: authenticator.signIn(options) };
    expect(
      (await postFrom(server.app, address, '/auth/passkeys/login/verify', answer)).statusCode,
    ).toBe(200);
    const replay = await postFrom(server.app, address, '/auth/passkeys/login/verify', answer);
    expect(replay.json()).toEqual(SIGN_IN_FAILED);
  });

  it('an answer naming an unknown passkey uses up its challenge, as one naming a known passkey does', async () => {
    const { authenticator } = await memberWithPasskey();
    const address = freshAddress();
    // A probe: does this credential id belong to some account? Answer one challenge with it...
    const options = await signInOptions(server.app);
    const probe = createPasskeyAuthenticator();
    expect((await verifyFrom(address, probe, {}, options)).json()).toEqual(SIGN_IN_FAILED);
    // ...then with a known passkey: were the challenge left unused, whether an id is
    // registered could be read from the answers.
    expect((await verifyFrom(address, authenticator, {}, options)).json()).toEqual(SIGN_IN_FAILED);
  });

  it('lets only one of two answers to one challenge sign in', async () => {
    const { authenticator } = await memberWithPasskey();
    const address = freshAddress();
    const options = await signInOptions(server.app);
    const answers = [authenticator.signIn(options), authenticator.signIn(options)];
    const results = await Promise.all(
      answers.map((response) =>
        postFrom(server.app, address, '/auth/passkeys/login/verify', { response }),
      ),
    );
    expect(results.map((result) => result.statusCode).sort()).toEqual([200, 401]);
  });

  it('refuses an expired challenge and a registration challenge', async () => {
    const { authenticator, tokens } = await memberWithPasskey();
    const address = freshAddress();
    const options = await signInOptions(server.app);
    await server.app.database.db
      .updateTable('passkeyChallenges')
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where('purpose', '=', 'login')
      .execute();
    expect((await verifyFrom(address, authenticator, {}, options)).json()).toEqual(SIGN_IN_FAILED);
    const registration = await post(
      server.app,
      '/auth/passkeys/register/options',
      {},
      tokens.accessToken,
    );
    const challenge = registration.json<{ challenge: string }>().challenge;
    expect((await verifyFrom(address, authenticator, { challenge })).json()).toEqual(
      SIGN_IN_FAILED,
    );
  });

  it("refuses, with one message, an unknown passkey, a forged signature, another site's answer and another account's handle", async () => {
    const { authenticator } = await memberWithPasskey();
    const other = await memberWithPasskey();
    const address = freshAddress();
    const unknown = createPasskeyAuthenticator();
    const { privateKey: forger } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const otherHandle = other.authenticator.signIn(await signInOptions(server.app)).response
      .userHandle;
    const refusals = [
      await verifyFrom(address, unknown),
      await verifyFrom(address, authenticator, { signWith: forger }),
      await verifyFrom(address, authenticator, { origin: 'https://kegel.test.evil.example' }),
      await verifyFrom(address, authenticator, { rpId: 'evil.example' }),
      await verifyFrom(address, authenticator, { userHandle: otherHandle }),
    ];
    for (const refused of refusals) expect(refused.json()).toEqual(SIGN_IN_FAILED);
    // The passkey itself still works.
    expect((await verifyFrom(freshAddress(), authenticator)).statusCode).toBe(200);
  });

  it('refuses a counter that goes backwards, and keeps accepting one that stays 0', async () => {
    const counting = createPasskeyAuthenticator({ counter: 10 });
    await memberWithPasskey(counting);
    const address = freshAddress();
    expect((await verifyFrom(address, counting)).statusCode).toBe(200); // 11
    expect((await verifyFrom(address, counting, { counter: 11 })).json()).toEqual(SIGN_IN_FAILED);
    expect((await verifyFrom(address, counting, { counter: 5 })).json()).toEqual(SIGN_IN_FAILED);
    expect((await verifyFrom(address, counting)).statusCode).toBe(200); // 12

    const synced = createPasskeyAuthenticator({ counter: 0, synced: true });
    await memberWithPasskey(synced);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect((await verifyFrom(address, synced)).statusCode).toBe(200);
    }
  });

  it('refuses a passkey once it is removed', async () => {
    const { authenticator, tokens } = await memberWithPasskey();
    const [passkey] = (
      await server.app.inject({
        method: 'GET',
        url: '/api/users/passkeys',
        headers: { authorization: `Bearer ${tokens.accessToken}` },
      })
    ).json<{ data: Array<{ id: string }> }>().data;
    const removed = await server.app.inject({
      method: 'DELETE',
      url: `/api/users/passkeys/${passkey!.id}`,
      headers: { authorization: `Bearer ${tokens.accessToken}` },
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await verifyFrom(freshAddress(), authenticator)).json()).toEqual(SIGN_IN_FAILED);
  });

  it("counts failures against the address's attempts budget: past it, 429 even for a good answer", async () => {
    const { authenticator } = await memberWithPasskey();
    const address = freshAddress();
    const stranger = createPasskeyAuthenticator();
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect((await verifyFrom(address, stranger)).statusCode).toBe(401);
    }
    const refused = await verifyFrom(address, stranger);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect((await verifyFrom(address, authenticator)).statusCode).toBe(429);
    // Other addresses are not held back.
    expect((await verifyFrom(freshAddress(), authenticator)).statusCode).toBe(200);
  });
});

describe.each(testDatabaseKinds)('the passkey sign-in budgets on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, {
      env: { SIGN_IN_PAGE_REQUESTS_PER_MINUTE: '3', AUTH_REQUESTS_PER_MINUTE: '5' },
    });
  });
  afterAll(() => server.close());

  it("asks for options within the sign-in page's budget, and every call within the /auth flood guard", async () => {
    const address = '203.0.113.9';
    const statuses: number[] = [];
    for (let call = 0; call < 4; call += 1) {
      statuses.push(
        (await postFrom(server.app, address, '/auth/passkeys/login/options', {})).statusCode,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const verify = await postFrom(server.app, address, '/auth/passkeys/login/verify', {});
    // The fifth /auth call from the address: still within the flood guard (and malformed).
    expect(verify.statusCode).toBe(400);
    expect(
      (await postFrom(server.app, address, '/auth/passkeys/login/verify', {})).statusCode,
    ).toBe(429);
  });
});
