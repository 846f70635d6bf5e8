import { createPublicKey, type JsonWebKey } from 'node:crypto';

import { type IdentitySandbox, startIdentitySandbox } from '@kegel/sandbox/identity-sandbox';
import { type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  createIdTokenVerifier,
  InvalidIdTokenError,
  isKeySetUnreachable,
} from '../../src/security/id-token-verifier';

/**
 * Our own ID-token check, on its own: for Google, openid-client refuses most bad tokens first,
 * so these cases make sure the verifier would refuse them by itself too.
 */
describe('the ID token verifier (Google settings)', () => {
  let sandbox: IdentitySandbox;
  const clientId = 'verifier-test.apps.googleusercontent.com';
  beforeAll(async () => {
    sandbox = await startIdentitySandbox({
      google: { clientId, clientSecret: 'secret' },
      apple: { clientId: 'unused' },
      allowedOrigins: [],
    });
  });
  afterAll(() => sandbox.close());

  function verifier() {
    return createIdTokenVerifier({
      jwksUrl: `${sandbox.google.issuer}/jwks`,
      issuers: [sandbox.google.issuer],
      audience: clientId,
    });
  }

  function claims(changes: JWTPayload = {}): JWTPayload {
    return {
      ...sandbox.idTokenClaims('google', {
        sub: '1234567890',
        email: 'someone@example.com',
        emailVerified: true,
      }),
      aud: clientId,
      ...changes,
    };
  }

  const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

  it('accepts a good token and reads sub, email and email_verified', async () => {
    const identity = await verifier().verify(await sandbox.signIdToken('google', claims()));
    expect(identity).toEqual({
      subject: '1234567890',
      email: 'someone@example.com',
      emailVerified: true,
      hostedDomain: null,
      nonce: null,
    });
  });

  it("reads a Google Workspace account's hosted domain (hd)", async () => {
    const identity = await verifier().verify(
      await sandbox.signIdToken('google', claims({ hd: 'example.com' })),
    );
    expect(identity.hostedDomain).toBe('example.com');
  });

  it('accepts several audiences when the authorized party (azp) is our client', async () => {
    const identity = await verifier().verify(
      await sandbox.signIdToken('google', claims({ aud: [clientId, 'another'], azp: clientId })),
    );
    expect(identity.subject).toBe('1234567890');
  });

  it("accepts a token for any of its clients (Apple: the web's Services ID and the iOS bundle id)", async () => {
    const both = createIdTokenVerifier({
      jwksUrl: `${sandbox.google.issuer}/jwks`,
      issuers: [sandbox.google.issuer],
      audience: [clientId, 'app.kegelcoach.ios'],
    });
    const fromTheApp = await sandbox.signIdToken('google', claims({ aud: 'app.kegelcoach.ios' }));
    expect((await both.verify(fromTheApp)).subject).toBe('1234567890');
    await expect(verifier().verify(fromTheApp)).rejects.toBeInstanceOf(InvalidIdTokenError);
    await expect(
      both.verify(await sandbox.signIdToken('google', claims({ aud: 'com.someone.else' }))),
    ).rejects.toBeInstanceOf(InvalidIdTokenError);
  });

  const bad: Array<[string, () => Promise<string>]> = [
    ['a wrong aud', () => sandbox.signIdToken('google', claims({ aud: 'another-client' }))],
    ['a wrong iss', () => sandbox.signIdToken('google', claims({ iss: 'https://evil.example' }))],
    [
      'a trailing-slash iss',
      () => sandbox.signIdToken('google', claims({ iss: `${sandbox.google.issuer}/` })),
    ],
    [
      'an exp one second ago',
      () => sandbox.signIdToken('google', claims({ exp: Math.floor(Date.now() / 1000) - 1 })),
    ],
    ['alg none', async () => `${base64url({ alg: 'none' })}.${base64url(claims())}.`],
    [
      'HS256 signed with the public key',
      async () => {
        const jwk = sandbox.publicJwk('google');
        const pem = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' })
          .export({ type: 'spki', format: 'pem' })
          .toString();
        return new SignJWT(claims())
          .setProtectedHeader({ alg: 'HS256', kid: jwk.kid })
          .sign(new TextEncoder().encode(pem));
      },
    ],
    ['an unknown kid', () => sandbox.signIdToken('google', claims(), { kid: 'unknown' })],
    ['no sub', () => sandbox.signIdToken('google', claims({ sub: undefined }))],
    // Issued to another client as well: only an `azp` naming us says it was issued for us.
    [
      'several audiences without azp',
      () => sandbox.signIdToken('google', claims({ aud: [clientId, 'another'], azp: undefined })),
    ],
    [
      'several audiences with the azp of another client',
      () => sandbox.signIdToken('google', claims({ aud: [clientId, 'another'], azp: 'another' })),
    ],
  ];
  for (const [name, makeToken] of bad) {
    it(`refuses ${name} as an invalid token`, async () => {
      const error = await verifier()
        .verify(await makeToken())
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InvalidIdTokenError);
      expect(isKeySetUnreachable(error)).toBe(false);
    });
  }

  it('tells an unreachable key set apart from a bad token', async () => {
    const unreachable = createIdTokenVerifier({
      jwksUrl: 'http://127.0.0.1:9/jwks',
      issuers: [sandbox.google.issuer],
      audience: clientId,
    });
    const error = await unreachable
      .verify(await sandbox.signIdToken('google', claims()))
      .catch((caught: unknown) => caught);
    expect(isKeySetUnreachable(error)).toBe(true);
  });
});

describe('the identity sandbox', () => {
  let sandbox: IdentitySandbox;
  beforeAll(async () => {
    sandbox = await startIdentitySandbox({
      google: { clientId: 'web-client', clientSecret: 'secret' },
      apple: { clientId: 'apple-client' },
      allowedOrigins: ['http://localhost:3000'],
    });
  });
  afterAll(() => sandbox.close());

  it('hands codes and tokens only to the app it serves', async () => {
    const query = (origin: string) =>
      new URLSearchParams({
        client_id: 'web-client',
        redirect_uri: 'postmessage',
        response_type: 'code',
        scope: 'openid email',
        state: 's',
        origin,
      }).toString();
    expect(
      (await fetch(`${sandbox.google.issuer}/authorize?${query('http://localhost:3000')}`)).status,
    ).toBe(200);
    expect(
      (await fetch(`${sandbox.google.issuer}/authorize?${query('https://evil.example')}`)).status,
    ).toBe(400);
    expect((await fetch(`${sandbox.google.issuer}/authorize?${query('*')}`)).status).toBe(400);
    const posted = await fetch(`${sandbox.google.issuer}/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `${query('https://evil.example')}&email=a%40example.com&decision=allow`,
    });
    expect(posted.status).toBe(400);
    expect(await posted.text()).not.toContain('code');
  });

  it('exchanges a code once, and only for its client and secret', async () => {
    const code = await sandbox.issueGoogleCode({ sub: '1', email: 'a@example.com' });
    const exchange = (secret: string) =>
      fetch(`${sandbox.google.issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`web-client:${secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: 'postmessage',
        }).toString(),
      });
    expect((await exchange('wrong')).status).toBe(401);
    expect((await exchange('secret')).status).toBe(200);
    expect((await exchange('secret')).status).toBe(400);
  });
});
