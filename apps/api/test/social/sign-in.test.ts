import { createPublicKey, type JsonWebKey } from 'node:crypto';

import type { IdentitySandbox, TestIdentity } from '@kegel/sandbox/identity-sandbox';
import { type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { getProfile, login, post, register, registerAndLogin } from '../support/accounts';
import {
  linkIn,
  startTestServer,
  TEST_TOKEN_SECRET,
  type TestServer,
  uniqueEmail,
} from '../support/test-app';
import { createSignInNonces } from '../../src/security/sign-in-nonces';
import { testDatabaseKinds } from '../support/test-databases';

/**
 * Sign in with Google and Apple through HTTP, against the local identity sandbox: the
 * real code exchange (openid-client) and real signature checks with the sandbox's published keys.
 */
let subjectCounter = 0;
function newSubject(): string {
  subjectCounter += 1;
  return `sub-${Date.now().toString(36)}-${subjectCounter}`;
}

/** A unique Gmail address: Google is the authority for it. */
function gmailAddress(label: string): string {
  return uniqueEmail(label).replace(/@example\.com$/, '@gmail.com');
}

const GOOGLE_EMAIL_TAKEN =
  'An account with this email already exists. Sign in with your email and password instead (use "Forgot your password?" if you have none).';

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe.each(testDatabaseKinds)('Google and Apple sign-in on $name', (kind) => {
  let server: TestServer;
  let sandbox: IdentitySandbox;
  beforeAll(async () => {
    server = await startTestServer(kind);
    sandbox = server.app.identitySandbox!;
  });
  afterAll(() => server.close());

  async function googleCode(identity: TestIdentity, idToken?: string): Promise<string> {
    return sandbox.issueGoogleCode(identity, idToken ? { idToken } : {});
  }

  function signInWithGoogle(code: string) {
    return post(server.app, '/auth/oauth/google/verify-token', { code, clientType: 'WEB' });
  }

  function signInWithApple(token: string) {
    return post(server.app, '/auth/oauth/apple/verify-token', { token });
  }

  async function appleNonce(): Promise<string> {
    const response = await post(server.app, '/auth/oauth/apple/nonce', {});
    expect(response.statusCode).toBe(200);
    return response.json<{ nonce: string }>().nonce;
  }

  async function profileOf(response: { statusCode: number; body: string; json: () => unknown }) {
    expect(response.statusCode, response.body).toBe(200);
    const { accessToken } = response.json() as { accessToken: string };
    const profile = await getProfile(server.app, accessToken);
    return profile.json<{ id: string; email: string; hasPassword: boolean }>();
  }

  async function identityRows(subject: string) {
    return server.app.database.db
      .selectFrom('userIdentities')
      .selectAll()
      .where('subject', '=', subject)
      .execute();
  }

  /** An Apple identity token as Apple would sign it, carrying a fresh nonce of ours. */
  async function appleToken(claims: Partial<JWTPayload> & { sub: string }, kid?: string) {
    return sandbox.signIdToken(
      'apple',
      { ...sandbox.idTokenClaims('apple', claims), nonce: await appleNonce(), ...claims },
      { kid },
    );
  }

  describe('Google', () => {
    it('signs a new verified email up, and the same sub in again even after its email changed', async () => {
      const sub = newSubject();
      const email = uniqueEmail('google');
      const first = await profileOf(
        await signInWithGoogle(await googleCode({ sub, email, emailVerified: true })),
      );
      expect(first.email).toBe(email);
      expect(first.hasPassword).toBe(false);

      const changed = await profileOf(
        await signInWithGoogle(
          await googleCode({ sub, email: uniqueEmail('renamed'), emailVerified: true }),
        ),
      );
      expect(changed.id).toBe(first.id);
      expect(changed.email).toBe(email);
      expect(await identityRows(sub)).toHaveLength(1);
    });

    it('makes the new account in the language of the page it signs up on', async () => {
      const code = await googleCode({
        sub: newSubject(),
        email: uniqueEmail('google'),
        emailVerified: true,
      });
      const signedUp = await server.app.inject({
        method: 'POST',
        url: '/api/auth/oauth/google/verify-token',
        headers: { 'accept-language': 'es-MX,es;q=0.9' },
        payload: { code, clientType: 'WEB' },
      });
      expect(await profileOf(signedUp)).toMatchObject({ locale: 'es' });
    });

    it('links a new sub with a verified Gmail address to a password account whose address was never proven, removing that password', async () => {
      const email = gmailAddress('unproven');
      const before = await registerAndLogin(server.app, email, 'correct horse');
      // Whoever registered also asked to move the account to an address of theirs.
      const elsewhere = uniqueEmail('elsewhere');
      const change = await post(
        server.app,
        '/auth/change-email',
        { newEmail: elsewhere, password: 'correct horse' },
        before.accessToken,
      );
      expect(change.statusCode).toBe(200);
      const changeLink = linkIn(
        await server.inbox.waitFor((message) => message.to.includes(elsewhere)),
      );
      const sub = newSubject();
      const profile = await profileOf(
        await signInWithGoogle(
          await googleCode({ sub, email: email.toUpperCase(), emailVerified: true }),
        ),
      );
      expect(profile.email).toBe(email);
      // Whoever registered the address first may not own it: their password and sessions end.
      expect(profile.hasPassword).toBe(false);
      expect((await getProfile(server.app, before.accessToken)).statusCode).toBe(401);
      const withPassword = await post(server.app, '/auth/local/login/email', {
        email,
        password: 'correct horse',
      });
      expect(withPassword.statusCode).toBe(401);
      expect((await identityRows(sub))[0]?.userId).toBe(profile.id);
      const lateChange = await post(server.app, '/auth/change-email/verify', {
        code: changeLink.searchParams.get('code'),
        newEmail: elsewhere,
      });
      expect(lateChange.statusCode).toBe(400);
      const notice = await server.inbox.waitFor(
        (message) => message.to.includes(email) && message.subject.includes('Google sign-in'),
      );
      expect(notice.text).toContain('the password set when the account was created was removed');
    });

    it('links a Google Workspace account (hd) to an account whose address was proven, keeping its password', async () => {
      const email = uniqueEmail('proven');
      await register(server.app, email, 'correct horse');
      // Following the emailed reset link proves the address.
      await post(server.app, '/auth/reset-password', { email });
      const resetMail = await server.inbox.waitFor(
        (message) => message.to.includes(email) && message.subject.includes('Reset'),
      );
      const link = linkIn(resetMail);
      const confirmed = await post(server.app, '/auth/reset-password/confirm', {
        email,
        code: link.searchParams.get('code'),
        newPassword: 'a proven password',
      });
      expect(confirmed.statusCode).toBe(200);

      const sub = newSubject();
      const profile = await profileOf(
        await signInWithGoogle(
          await googleCode({ sub, email, emailVerified: true, hostedDomain: 'example.com' }),
        ),
      );
      expect(profile.hasPassword).toBe(true);
      await login(server.app, email, 'a proven password');
      const notice = await server.inbox.waitFor(
        (message) => message.to.includes(email) && message.subject.includes('Google sign-in'),
      );
      expect(notice.text).not.toContain('removed');
    });

    it('links a googlemail.com address, which Gmail also answers for', async () => {
      const email = uniqueEmail('googlemail').replace(/@example\.com$/, '@googlemail.com');
      await register(server.app, email, 'correct horse');
      const sub = newSubject();
      const profile = await profileOf(
        await signInWithGoogle(await googleCode({ sub, email, emailVerified: true })),
      );
      expect(profile.email).toBe(email);
      expect((await identityRows(sub))[0]?.userId).toBe(profile.id);
    });

    it('refuses to link an address of another domain, which Google does not answer for, and writes nothing', async () => {
      // Google verified this address when its Google account was made; the address may have
      // passed to someone else since (a former employee's, a domain that lapsed and was bought).
      const email = uniqueEmail('other-domain');
      const before = await registerAndLogin(server.app, email, 'correct horse');
      const sub = newSubject();
      const refused = await signInWithGoogle(
        await googleCode({ sub, email: email.toUpperCase(), emailVerified: true }),
      );
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toEqual({
        statusCode: 409,
        error: 'Conflict',
        message: GOOGLE_EMAIL_TAKEN,
      });
      expect(await identityRows(sub)).toHaveLength(0);
      // The account is as it was: its password and its sessions still work.
      expect((await getProfile(server.app, before.accessToken)).statusCode).toBe(200);
      await login(server.app, email, 'correct horse');
    });

    it('still makes a new account for a verified address of any domain that has none', async () => {
      const email = uniqueEmail('new-other-domain');
      const profile = await profileOf(
        await signInWithGoogle(await googleCode({ sub: newSubject(), email, emailVerified: true })),
      );
      expect(profile.email).toBe(email);
    });

    it('never links or makes an account from an unverified email', async () => {
      const taken = uniqueEmail('unverified');
      await register(server.app, taken, 'correct horse');
      const fresh = uniqueEmail('unverified-new');
      for (const email of [taken, fresh]) {
        const sub = newSubject();
        const refused = await signInWithGoogle(
          await googleCode({ sub, email, emailVerified: false }),
        );
        expect(refused.statusCode).toBe(403);
        expect(await identityRows(sub)).toHaveLength(0);
      }
      const users = await server.app.database.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', fresh)
        .execute();
      expect(users).toHaveLength(0);
    });

    it('refuses a replayed code', async () => {
      const code = await googleCode({
        sub: newSubject(),
        email: uniqueEmail(),
        emailVerified: true,
      });
      expect((await signInWithGoogle(code)).statusCode).toBe(200);
      const replayed = await signInWithGoogle(code);
      expect(replayed.statusCode).toBe(401);
      expect(replayed.json()).toMatchObject({
        message: 'Google sign-in failed. Please try again.',
      });
    });

    it('refuses an unknown code and a body without clientType WEB', async () => {
      expect((await signInWithGoogle('4/not-a-code')).statusCode).toBe(401);
      const noClient = await post(server.app, '/auth/oauth/google/verify-token', { code: 'x' });
      expect(noClient.statusCode).toBe(400);
      const mobile = await post(server.app, '/auth/oauth/google/verify-token', {
        code: 'x',
        clientType: 'IOS',
      });
      expect(mobile.statusCode).toBe(400);
    });

    it('answers on the capitalised spelling too (/auth/oauth/Google/verify-token)', async () => {
      const code = await googleCode({
        sub: newSubject(),
        email: uniqueEmail(),
        emailVerified: true,
      });
      const response = await post(server.app, '/auth/oauth/Google/verify-token', {
        code,
        clientType: 'WEB',
      });
      expect(response.statusCode).toBe(200);
    });

    const badGoogleTokens: Array<[string, (claims: JWTPayload) => Promise<string>]> = [
      [
        'a wrong aud',
        (claims) => sandbox.signIdToken('google', { ...claims, aud: 'someone-else' }),
      ],
      [
        'a wrong iss',
        (claims) => sandbox.signIdToken('google', { ...claims, iss: 'https://evil.example' }),
      ],
      [
        'a trailing-slash iss',
        (claims) => sandbox.signIdToken('google', { ...claims, iss: `${claims.iss}/` }),
      ],
      [
        'an exp one second ago',
        (claims) =>
          sandbox.signIdToken('google', { ...claims, exp: Math.floor(Date.now() / 1000) - 1 }),
      ],
      [
        'alg none',
        async (claims) => `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`,
      ],
      [
        'HS256 signed with the public key',
        async (claims) => {
          const jwk = sandbox.publicJwk('google');
          const pem = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' })
            .export({ type: 'spki', format: 'pem' })
            .toString();
          return new SignJWT(claims)
            .setProtectedHeader({ alg: 'HS256', kid: jwk.kid })
            .sign(new TextEncoder().encode(pem));
        },
      ],
      ['an unknown kid', (claims) => sandbox.signIdToken('google', claims, { kid: 'unknown' })],
      [
        'several audiences and no azp',
        (claims) =>
          sandbox.signIdToken('google', {
            ...claims,
            aud: [String(claims.aud), 'another-client'],
            azp: undefined,
          }),
      ],
      [
        'several audiences and the azp of another client',
        (claims) =>
          sandbox.signIdToken('google', {
            ...claims,
            aud: [String(claims.aud), 'another-client'],
            azp: 'another-client',
          }),
      ],
    ];
    for (const [name, makeToken] of badGoogleTokens) {
      it(`refuses an ID token with ${name}, and writes nothing`, async () => {
        const sub = newSubject();
        const email = uniqueEmail('bad-google');
        const claims = sandbox.idTokenClaims('google', { sub, email, emailVerified: true });
        const response = await signInWithGoogle(await googleCode({ sub }, await makeToken(claims)));
        expect(response.statusCode, response.body).toBe(401);
        expect(await identityRows(sub)).toHaveLength(0);
        const user = await server.app.database.db
          .selectFrom('users')
          .select('id')
          .where('email', '=', email)
          .executeTakeFirst();
        expect(user).toBeUndefined();
      });
    }
  });

  describe('Apple', () => {
    it('reaches the same account on a second sign-in that carries no email', async () => {
      const sub = newSubject();
      const email = uniqueEmail('apple');
      const first = await profileOf(
        await signInWithApple(await appleToken({ sub, email, email_verified: 'true' })),
      );
      expect(first.email).toBe(email);
      const again = await profileOf(await signInWithApple(await appleToken({ sub })));
      expect(again.id).toBe(first.id);
    });

    it('links a verified email of any domain to its account: Apple answers for the addresses it shares', async () => {
      const email = uniqueEmail('apple-links');
      await register(server.app, email, 'correct horse');
      const sub = newSubject();
      const profile = await profileOf(
        await signInWithApple(await appleToken({ sub, email, email_verified: 'true' })),
      );
      expect(profile.email).toBe(email);
      expect((await identityRows(sub))[0]?.userId).toBe(profile.id);
    });

    it('makes the new account in the language of the page it signs up on', async () => {
      const token = await appleToken({
        sub: newSubject(),
        email: uniqueEmail('apple'),
        email_verified: true,
      });
      const signedUp = await server.app.inject({
        method: 'POST',
        url: '/api/auth/oauth/apple/verify-token',
        headers: { 'accept-language': 'de' },
        payload: { token },
      });
      expect(await profileOf(signedUp)).toMatchObject({ locale: 'de' });
    });

    it('keeps a private-relay address as given', async () => {
      const relay = `${newSubject()}@privaterelay.appleid.com`;
      const profile = await profileOf(
        await signInWithApple(
          await appleToken({ sub: newSubject(), email: relay, email_verified: 'true' }),
        ),
      );
      expect(profile.email).toBe(relay);
    });

    it('cannot make an account for a new sub without an email', async () => {
      const sub = newSubject();
      const response = await signInWithApple(await appleToken({ sub }));
      expect(response.statusCode).toBe(401);
      expect(await identityRows(sub)).toHaveLength(0);
    });

    it('takes a token only with a nonce of ours, unexpired and used once', async () => {
      const email = uniqueEmail('nonce');
      const sub = newSubject();
      const claims = sandbox.idTokenClaims('apple', { sub, email, emailVerified: true });
      const expired = createSignInNonces(TEST_TOKEN_SECRET).issue(Date.now() - 11 * 60 * 1000);
      for (const nonce of [undefined, 'made-up-by-the-client-0123456789', expired]) {
        const token = await sandbox.signIdToken('apple', { ...claims, nonce });
        expect((await signInWithApple(token)).statusCode, String(nonce)).toBe(401);
      }
      expect(await identityRows(sub)).toHaveLength(0);

      const token = await sandbox.signIdToken('apple', { ...claims, nonce: await appleNonce() });
      expect((await signInWithApple(token)).statusCode).toBe(200);
      // The same token again (copied, replayed): refused.
      expect((await signInWithApple(token)).statusCode).toBe(401);
    });

    it('refuses wrong aud, several aud without azp, wrong iss, expired by a second, alg none and a forged HS256', async () => {
      const sub = newSubject();
      const email = uniqueEmail('bad-apple');
      // A good nonce each time: only the one thing tampered with may be what is refused.
      const claims = { ...sandbox.idTokenClaims('apple', { sub, email, emailVerified: true }) };
      const withNonce = async (changes: JWTPayload) => ({
        ...claims,
        nonce: await appleNonce(),
        ...changes,
      });
      const jwk = sandbox.publicJwk('apple');
      const pem = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' })
        .export({ type: 'spki', format: 'pem' })
        .toString();
      const tokens = [
        await sandbox.signIdToken('apple', await withNonce({ aud: 'com.someone.else' })),
        // Ours among others, with no authorized party (azp) naming us.
        await sandbox.signIdToken(
          'apple',
          await withNonce({ aud: [String(claims.aud), 'com.someone.else'] }),
        ),
        await sandbox.signIdToken('apple', await withNonce({ iss: 'https://appleid.apple.com' })),
        await sandbox.signIdToken('apple', await withNonce({ iss: `${claims.iss}/` })),
        await sandbox.signIdToken(
          'apple',
          await withNonce({ exp: Math.floor(Date.now() / 1000) - 1 }),
        ),
        `${base64url({ alg: 'none' })}.${base64url(await withNonce({}))}.`,
        await new SignJWT(await withNonce({}))
          .setProtectedHeader({ alg: 'HS256', kid: jwk.kid })
          .sign(new TextEncoder().encode(pem)),
        'not.a.token',
      ];
      for (const token of tokens) {
        const response = await signInWithApple(token);
        expect(response.statusCode, token).toBe(401);
      }
      expect(await identityRows(sub)).toHaveLength(0);
    });

    it('answers a storm of unknown kids with 401s and at most one key fetch', async () => {
      // Warm the key cache with one good sign-in.
      await profileOf(
        await signInWithApple(
          await appleToken({ sub: newSubject(), email: uniqueEmail(), email_verified: 'true' }),
        ),
      );
      const fetchesBefore = sandbox.keySetFetches.apple;
      // Waves one after another: concurrent requests alone would share one fetch anyway.
      const storm = [];
      for (let wave = 0; wave < 5; wave += 1) {
        storm.push(
          ...(await Promise.all(
            Array.from({ length: 5 }, async (_, index) =>
              signInWithApple(await appleToken({ sub: newSubject() }, `rotated-${wave}-${index}`)),
            ),
          )),
        );
      }
      expect(storm.map((response) => response.statusCode)).toEqual(Array(25).fill(401));
      expect(sandbox.keySetFetches.apple - fetchesBefore).toBeLessThanOrEqual(1);
    });

    it('makes one account for ten simultaneous first sign-ins of one identity', async () => {
      const sub = newSubject();
      const email = uniqueEmail('together');
      const tokens = await Promise.all(
        Array.from({ length: 10 }, () => appleToken({ sub, email, email_verified: 'true' })),
      );
      const responses = await Promise.all(tokens.map((token) => signInWithApple(token)));
      expect(responses.map((response) => response.statusCode)).toEqual(Array(10).fill(200));
      expect(await identityRows(sub)).toHaveLength(1);
      const users = await server.app.database.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', email)
        .execute();
      expect(users).toHaveLength(1);
    });
  });

  it('tells the web app which providers to offer and which scripts to load', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/api/auth/oauth/providers' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      google: { clientId: expect.any(String), scriptUrl: sandbox.google.scriptUrl },
      apple: {
        clientId: expect.any(String),
        scriptUrl: sandbox.apple.scriptUrl,
        redirectUri: 'https://kegel.test/auth/login',
      },
    });
  });
});

describe('providers out of reach', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Real-provider settings pointed at a port nobody listens on.
    server = await startTestServer(testDatabaseKinds[0]!, {
      env: {
        GOOGLE_CLIENT_ID: 'client.apps.googleusercontent.com',
        GOOGLE_CLIENT_SECRET: 'secret',
        GOOGLE_ISSUER: 'http://127.0.0.1:9',
        APPLE_CLIENT_ID: 'com.example.web',
        APPLE_JWKS_URL: 'http://127.0.0.1:9/auth/keys',
      },
    });
  });
  afterAll(() => server.close());

  it('answers 503, not 401 or 500, and runs no sandbox', async () => {
    expect(server.app.identitySandbox).toBeNull();
    const google = await post(server.app, '/auth/oauth/google/verify-token', {
      code: '4/abc',
      clientType: 'WEB',
    });
    expect(google.statusCode, google.body).toBe(503);
    const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'k' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ sub: 'x' })).toString('base64url');
    const apple = await post(server.app, '/auth/oauth/apple/verify-token', {
      token: `${header}.${payload}.c2ln`,
    });
    expect(apple.statusCode, apple.body).toBe(503);
  });
});
