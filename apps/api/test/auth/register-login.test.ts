import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { decodeJwt, getProfile, login, post, register } from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

describe.each(testDatabaseKinds)('register and sign in on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  it('registers, signs in and reads the profile', async () => {
    const email = uniqueEmail('new');
    const registered = await post(server.app, '/auth/local/register/email', {
      email,
      password: 'correct horse',
    });
    expect(registered.statusCode).toBe(201);
    expect(registered.json()).toEqual({ id: expect.any(String), email });

    const tokens = await login(server.app, email, 'correct horse');
    const profile = await getProfile(server.app, tokens.accessToken);
    expect(profile.statusCode).toBe(200);
    expect(profile.json()).toEqual({
      id: registered.json<{ id: string }>().id,
      email,
      subscriptionEndDate: null,
      hasPassword: true,
      twoStepEnabled: false,
      locale: 'en',
    });
  });

  it('stores an argon2id PHC string with at least m=19456, t=2, p=1', async () => {
    const email = uniqueEmail('hash');
    await register(server.app, email, 'correct horse');
    const row = await server.app.database.db
      .selectFrom('users')
      .select('passwordHash')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(row.passwordHash).toMatch(
      /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/,
    );
  });

  it('trims emails, treats case as the same account and keeps plus-addresses distinct', async () => {
    const email = uniqueEmail('Case');
    await register(server.app, `  ${email}  `, 'correct horse');
    const duplicate = await post(server.app, '/auth/local/register/email', {
      email: email.toUpperCase(),
      password: 'correct horse',
    });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json()).toEqual({
      statusCode: 409,
      error: 'Conflict',
      message: 'An account with this email already exists',
    });
    await register(server.app, email.replace('@', '+kegel@'), 'correct horse');
    await login(server.app, email.toLowerCase(), 'correct horse');
  });

  it('answers bad input with the field messages of the contract, one per problem', async () => {
    const response = await post(server.app, '/auth/local/register/email', {
      email: 'nope',
      password: 'short',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: ['Invalid email', 'Password is too short'],
      fields: [
        { field: 'email', message: 'Invalid email' },
        { field: 'password', message: 'Password is too short' },
      ],
    });
    const missing = await post(server.app, '/auth/local/register/email', {});
    expect(missing.json<{ message: string[] }>().message).toContain('Email is required');
  });

  it('refuses CR/LF and over-long addresses, and passwords over 256 characters', async () => {
    for (const email of ['a@b.co\r\nBcc: x@y.z', `${'a'.repeat(250)}@b.co`]) {
      const response = await post(server.app, '/auth/local/register/email', {
        email,
        password: 'correct horse',
      });
      expect(response.statusCode).toBe(400);
    }
    const long = await post(server.app, '/auth/local/register/email', {
      email: uniqueEmail(),
      password: 'x'.repeat(257),
    });
    expect(long.json()).toMatchObject({ statusCode: 400, message: ['Password is too long'] });
  });

  it('accepts any Unicode password of up to 256 characters, without truncating it', async () => {
    const email = uniqueEmail('unicode');
    const password = `🔒 пароль ${'ü'.repeat(240)}`.slice(0, 256);
    await register(server.app, email, password);
    await login(server.app, email, password);
    const truncated = await post(server.app, '/auth/local/login/email', {
      email,
      password: password.slice(0, 72),
    });
    expect(truncated.statusCode).toBe(401);
  });

  it('answers a wrong password and an unknown email the same way', async () => {
    const email = uniqueEmail('known');
    await register(server.app, email, 'correct horse');
    const wrongPassword = await post(server.app, '/auth/local/login/email', {
      email,
      password: 'wrong horse',
    });
    const unknownEmail = await post(server.app, '/auth/local/login/email', {
      email: uniqueEmail('unknown'),
      password: 'wrong horse',
    });
    expect(wrongPassword.statusCode).toBe(401);
    expect(unknownEmail.statusCode).toBe(401);
    expect(wrongPassword.body).toBe(unknownEmail.body);
    expect(wrongPassword.json()).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: 'Invalid email or password',
    });
  });

  it('issues a 15-minute HS256 access token with exp in seconds, and a refresh token for 30 days', async () => {
    const email = uniqueEmail('jwt');
    await register(server.app, email, 'correct horse');
    const before = Math.floor(Date.now() / 1000);
    const { accessToken, refreshToken } = await login(server.app, email, 'correct horse');
    const access = decodeJwt(accessToken);
    expect(access.header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(access.exp).toBeGreaterThanOrEqual(before + 15 * 60);
    expect(access.exp).toBeLessThanOrEqual(before + 15 * 60 + 5);
    const refresh = decodeJwt(refreshToken);
    expect(refresh.exp).toBeGreaterThanOrEqual(before + 30 * 24 * 3600 - 5);
    expect(refresh.exp).toBeLessThanOrEqual(before + 30 * 24 * 3600 + 5);
    expect(Buffer.from(String(refresh.jti), 'base64url').length).toBeGreaterThanOrEqual(16);
  });

  it('never stores a refresh token, only its hash', async () => {
    const email = uniqueEmail('stored');
    await register(server.app, email, 'correct horse');
    const { refreshToken } = await login(server.app, email, 'correct horse');
    const secret = String(decodeJwt(refreshToken).jti);
    const rows = await server.app.database.db
      .selectFrom('refreshTokens')
      .select('tokenHash')
      .execute();
    expect(
      rows.some((row) => row.tokenHash.includes(secret) || refreshToken.includes(row.tokenHash)),
    ).toBe(false);
  });

  it('refuses a refresh token as an access token, and an access token as a refresh token', async () => {
    const email = uniqueEmail('swap');
    await register(server.app, email, 'correct horse');
    const { accessToken, refreshToken } = await login(server.app, email, 'correct horse');
    expect((await getProfile(server.app, refreshToken)).statusCode).toBe(401);
    expect(
      (await post(server.app, '/auth/refresh', { refreshToken: accessToken })).statusCode,
    ).toBe(401);
  });

  it("refuses tokens with alg 'none' or a forged signature", async () => {
    const email = uniqueEmail('forged');
    await register(server.app, email, 'correct horse');
    const { accessToken } = await login(server.app, email, 'correct horse');
    const [, payload] = accessToken.split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    expect((await getProfile(server.app, none)).statusCode).toBe(401);
    const tampered = `${accessToken.slice(0, -4)}AAAA`;
    expect((await getProfile(server.app, tampered)).statusCode).toBe(401);
    const missing = await server.app.inject({ method: 'GET', url: '/api/users/profile' });
    expect(missing.json()).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: 'Please sign in',
    });
  });

  it('answers malformed JSON with the error shape and no internals', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/auth/local/login/email',
      headers: { 'content-type': 'application/json' },
      payload: '{"email": ',
    });
    expect(response.statusCode).toBe(400);
    const body = response.json<{ message: string; stack?: string }>();
    expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(body.stack).toBeUndefined();
  });
});
