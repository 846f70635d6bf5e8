import type { TokenPair } from '@kegel/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createSessionTokens } from '../../src/security/session-tokens';
import { decodeJwt, getProfile, login, post, registerAndLogin } from '../support/accounts';
import {
  startTestServer,
  TEST_TOKEN_SECRET,
  type TestServer,
  uniqueEmail,
} from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

describe.each(testDatabaseKinds)('refresh, rotation and logout on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const refresh = (refreshToken: string) => post(server.app, '/auth/refresh', { refreshToken });

  /** Moves a token's rotation into the past, as if that much time had gone by. */
  async function ageRotation(refreshToken: string, seconds: number): Promise<void> {
    const sessionId = String(decodeJwt(refreshToken).sid);
    await server.app.database.db
      .updateTable('refreshTokens')
      .set({ rotatedAt: sql<Date>`rotated_at - make_interval(secs => ${seconds})` })
      .where('sessionId', '=', sessionId)
      .where('rotatedAt', 'is not', null)
      .execute();
  }

  it('rotates: a new pair whose access token works', async () => {
    const first = await registerAndLogin(server.app, uniqueEmail('rotate'), 'correct horse');
    const response = await refresh(first.refreshToken);
    expect(response.statusCode).toBe(200);
    const second = response.json<TokenPair>();
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect((await getProfile(server.app, second.accessToken)).statusCode).toBe(200);
  });

  it('gives the same successor to the same token presented twice within the grace', async () => {
    const first = await registerAndLogin(server.app, uniqueEmail('tabs'), 'correct horse');
    const a = (await refresh(first.refreshToken)).json<TokenPair>();
    const b = await refresh(first.refreshToken);
    expect(b.statusCode).toBe(200);
    expect(b.json<TokenPair>().refreshToken).toBe(a.refreshToken);
  });

  it('survives twenty refreshes with one token at once: all succeed with one successor', async () => {
    const first = await registerAndLogin(server.app, uniqueEmail('twenty'), 'correct horse');
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => refresh(first.refreshToken)),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(200));
    const successors = new Set(
      responses.map((response) => response.json<TokenPair>().refreshToken),
    );
    expect(successors.size).toBe(1);
    const [successor] = [...successors];
    expect((await refresh(successor!)).statusCode).toBe(200);
  });

  it('revokes the whole session when a rotated token comes back after the grace', async () => {
    const first = await registerAndLogin(server.app, uniqueEmail('reuse'), 'correct horse');
    const second = (await refresh(first.refreshToken)).json<TokenPair>();
    await ageRotation(first.refreshToken, 60);

    const replay = await refresh(first.refreshToken);
    expect(replay.statusCode).toBe(401);
    // The legitimate holder's tokens die with the session.
    expect((await refresh(second.refreshToken)).statusCode).toBe(401);
    expect((await getProfile(server.app, second.accessToken)).statusCode).toBe(401);
  });

  it('revokes the session when a token two rotations old comes back, even within the grace', async () => {
    const first = await registerAndLogin(server.app, uniqueEmail('two-old'), 'correct horse');
    const second = (await refresh(first.refreshToken)).json<TokenPair>();
    const third = (await refresh(second.refreshToken)).json<TokenPair>();

    expect((await refresh(first.refreshToken)).statusCode).toBe(401);
    expect((await refresh(third.refreshToken)).statusCode).toBe(401);
    expect((await getProfile(server.app, third.accessToken)).statusCode).toBe(401);
  });

  it('ends a session 30 days after sign-in, whatever the refreshes', async () => {
    const tokens = await registerAndLogin(server.app, uniqueEmail('expiry'), 'correct horse');
    await server.app.database.db
      .updateTable('authSessions')
      .set({ expiresAt: sql<Date>`now() - interval '1 second'` })
      .where('id', '=', String(decodeJwt(tokens.refreshToken).sid))
      .execute();
    expect((await refresh(tokens.refreshToken)).statusCode).toBe(401);
    expect((await getProfile(server.app, tokens.accessToken)).statusCode).toBe(401);
  });

  it('keeps the 30 days across rotations: a successor expires with its session', async () => {
    const first = await registerAndLogin(server.app, uniqueEmail('same-exp'), 'correct horse');
    const second = (await refresh(first.refreshToken)).json<TokenPair>();
    expect(decodeJwt(second.refreshToken).exp).toBe(decodeJwt(first.refreshToken).exp);
  });

  it('logs out: the session ends on the server, its tokens stop working, other sessions live on', async () => {
    const email = uniqueEmail('logout');
    const phone = await registerAndLogin(server.app, email, 'correct horse');
    const laptop = (
      await post(server.app, '/auth/local/login/email', { email, password: 'correct horse' })
    ).json<TokenPair>();

    const response = await post(server.app, '/auth/logout', { refreshToken: laptop.refreshToken });
    expect(response.statusCode).toBe(200);
    expect((await refresh(laptop.refreshToken)).statusCode).toBe(401);
    expect((await getProfile(server.app, laptop.accessToken)).statusCode).toBe(401);
    expect((await getProfile(server.app, phone.accessToken)).statusCode).toBe(200);

    // Idempotent for a token of ours whose session has ended.
    expect(
      (await post(server.app, '/auth/logout', { refreshToken: laptop.refreshToken })).statusCode,
    ).toBe(200);
  });

  it('refuses to log out with what is not a refresh token of ours: 401, like every other call', async () => {
    const tokens = await registerAndLogin(server.app, uniqueEmail('logout-bad'), 'correct horse');
    const [header, payload] = tokens.refreshToken.split('.');
    const forged = `${header}.${payload}.${Buffer.alloc(32).toString('base64url')}`;
    for (const refreshToken of ['not-a-token', forged, tokens.accessToken]) {
      const response = await post(server.app, '/auth/logout', { refreshToken });
      expect(response.statusCode, refreshToken).toBe(401);
      expect(response.json()).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        message: 'Your session has ended. Please sign in again.',
      });
    }
    // Nothing was ended by them.
    expect((await getProfile(server.app, tokens.accessToken)).statusCode).toBe(200);
  });

  it("refuses one session's token secret under another session's id, signed with our key: neither session ends", async () => {
    // A token is found by its session and its secret's hash together (migration 0029): a secret
    // that is ours, presented for a session it was not issued in, matches nothing there.
    const email = uniqueEmail('cross');
    const laptop = await registerAndLogin(server.app, email, 'correct horse');
    const phone = await login(server.app, email, 'correct horse');
    const moved = await createSessionTokens(TEST_TOKEN_SECRET).issueRefreshToken({
      sessionId: String(decodeJwt(phone.refreshToken).sid),
      secret: String(decodeJwt(laptop.refreshToken).jti),
      expiresAt: new Date(Date.now() + 60_000),
    });
    expect((await refresh(moved.token)).statusCode).toBe(401);
    expect((await post(server.app, '/auth/logout', { refreshToken: moved.token })).statusCode).toBe(
      200,
    );
    expect((await getProfile(server.app, phone.accessToken)).statusCode).toBe(200);
    expect((await getProfile(server.app, laptop.accessToken)).statusCode).toBe(200);
    expect((await refresh(laptop.refreshToken)).statusCode).toBe(200);
  });

  it('refuses a refresh token of 128+ random bits forged without the key', async () => {
    const tokens = await registerAndLogin(server.app, uniqueEmail('forge'), 'correct horse');
    const [header, payload] = tokens.refreshToken.split('.');
    const forged = `${header}.${payload}.${Buffer.alloc(32).toString('base64url')}`;
    const response = await refresh(forged);
    expect(response.json()).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: 'Your session has ended. Please sign in again.',
    });
  });
});
