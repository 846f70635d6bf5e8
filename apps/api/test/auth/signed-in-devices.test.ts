import type { SessionsResponse, TokenPair } from '@kegel/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createSessionPruning } from '../../src/modules/auth/session-pruning';
import { getProfile, post, register } from '../support/accounts';
import { buildTestApp, startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const CHROME_ON_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_ON_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const DAY_MS = 24 * 60 * 60 * 1000;
const silentLog = { info: () => {}, error: () => {} };

/** Where you're signed in: the list, signing one device or all others out, and the pruning. */
describe.each(testDatabaseKinds)('signed-in devices on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  async function signIn(email: string, userAgent: string): Promise<TokenPair> {
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/auth/local/login/email',
      headers: { 'user-agent': userAgent },
      payload: { email, password: 'correct horse' },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<TokenPair>();
  }

  function call(method: 'GET' | 'POST' | 'DELETE', url: string, accessToken: string) {
    return server.app.inject({
      method,
      url: `/api${url}`,
      headers: { authorization: `Bearer ${accessToken}` },
    });
  }

  async function sessionsOf(accessToken: string) {
    return (await call('GET', '/users/sessions', accessToken)).json<SessionsResponse>().data;
  }

  it('lists the open sessions, last used first, with device, method and the current one marked', async () => {
    const email = uniqueEmail('devices');
    await register(server.app, email, 'correct horse');
    const mac = await signIn(email, CHROME_ON_MAC);
    const windows = await signIn(email, FIREFOX_ON_WINDOWS);
    let sessions = await sessionsOf(windows.accessToken);
    expect(sessions.map((session) => [session.device, session.method, session.current])).toEqual([
      ['Firefox on Windows', 'password', true],
      ['Chrome on macOS', 'password', false],
    ]);
    // A renewal is a use: the Mac comes first again.
    const renewed = await post(server.app, '/auth/refresh', { refreshToken: mac.refreshToken });
    expect(renewed.statusCode).toBe(200);
    sessions = await sessionsOf(windows.accessToken);
    expect(sessions.map((session) => session.device)).toEqual([
      'Chrome on macOS',
      'Firefox on Windows',
    ]);
    expect(sessions[0]).toEqual({
      id: expect.any(String),
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
      device: 'Chrome on macOS',
      method: 'password',
      current: false,
    });
  });

  it("names the devices in the page's language, and an unknown one too", async () => {
    const email = uniqueEmail('geraete');
    await register(server.app, email, 'correct horse');
    const mac = await signIn(email, CHROME_ON_MAC);
    await signIn(email, '');
    const devicesIn = async (language: string, url: string) => {
      const response = await server.app.inject({
        method: 'GET',
        url: `/api${url}`,
        headers: { authorization: `Bearer ${mac.accessToken}`, 'accept-language': language },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-language']).toBe(language);
      return response.json<{ data: { device: string }[] }>().data.map(({ device }) => device);
    };
    expect(await devicesIn('de', '/users/sessions')).toEqual([
      'Unbekanntes Gerät',
      'Chrome unter macOS',
    ]);
    expect(await devicesIn('es', '/users/sign-ins')).toEqual([
      'Dispositivo desconocido',
      'Chrome en macOS',
    ]);
    expect(await devicesIn('en', '/users/sessions')).toEqual(['Unknown device', 'Chrome on macOS']);
  });

  it("signs one of the member's sessions out, and answers 404 for anyone else's", async () => {
    const email = uniqueEmail('sign-out-one');
    await register(server.app, email, 'correct horse');
    const here = await signIn(email, CHROME_ON_MAC);
    const there = await signIn(email, FIREFOX_ON_WINDOWS);
    const strangerEmail = uniqueEmail('stranger');
    await register(server.app, strangerEmail, 'correct horse');
    const stranger = await signIn(strangerEmail, CHROME_ON_MAC);
    const thereSession = (await sessionsOf(here.accessToken)).find((session) => !session.current);

    for (const id of [thereSession!.id, 'not-a-session', '00000000-0000-4000-8000-000000000000']) {
      const refused = await call('DELETE', `/users/sessions/${id}`, stranger.accessToken);
      expect(refused.json()).toEqual({
        statusCode: 404,
        error: 'Not Found',
        message: 'Session not found',
      });
    }
    expect((await getProfile(server.app, there.accessToken)).statusCode).toBe(200);

    const ended = await call('DELETE', `/users/sessions/${thereSession!.id}`, here.accessToken);
    expect(ended.json()).toEqual({ message: 'Signed out' });
    expect((await getProfile(server.app, there.accessToken)).statusCode).toBe(401);
    expect(
      (await post(server.app, '/auth/refresh', { refreshToken: there.refreshToken })).statusCode,
    ).toBe(401);
    expect(
      (await call('DELETE', `/users/sessions/${thereSession!.id}`, here.accessToken)).statusCode,
    ).toBe(404);
    expect(await sessionsOf(here.accessToken)).toHaveLength(1);
  });

  it('signs every other session out and keeps the caller', async () => {
    const email = uniqueEmail('others');
    await register(server.app, email, 'correct horse');
    const others = [await signIn(email, CHROME_ON_MAC), await signIn(email, FIREFOX_ON_WINDOWS)];
    const here = await signIn(email, CHROME_ON_MAC);
    const response = await call('POST', '/users/sessions/revoke-others', here.accessToken);
    expect(response.json()).toEqual({ message: 'Signed out of all other devices' });
    for (const other of others)
      expect((await getProfile(server.app, other.accessToken)).statusCode).toBe(401);
    expect((await getProfile(server.app, here.accessToken)).statusCode).toBe(200);
    expect((await sessionsOf(here.accessToken)).map((session) => session.current)).toEqual([true]);
  });

  it('deletes sessions and their refresh tokens 30 days after they ended, once, with two processes at it', async () => {
    const email = uniqueEmail('pruned');
    await register(server.app, email, 'correct horse');
    const sessions = [];
    for (let index = 0; index < 4; index += 1) sessions.push(await signIn(email, CHROME_ON_MAC));
    const ids = (await sessionsOf(sessions[0]!.accessToken)).map((session) => session.id);
    const { db } = server.app.database;
    const ago = (days: number) => new Date(Date.now() - days * DAY_MS);
    // Revoked 31 days ago, expired 40 days ago: deleted. Revoked 29 days ago, open: kept.
    await db
      .updateTable('authSessions')
      .set({ revokedAt: ago(31) })
      .where('id', '=', ids[0]!)
      .execute();
    await db
      .updateTable('authSessions')
      .set({ expiresAt: ago(40) })
      .where('id', '=', ids[1]!)
      .execute();
    await db
      .updateTable('authSessions')
      .set({ revokedAt: ago(29) })
      .where('id', '=', ids[2]!)
      .execute();

    // A second process on the same database (PostgreSQL), or the same one twice (PGlite).
    const other = kind.name === 'PostgreSQL' ? await buildTestApp(server.database) : undefined;
    try {
      const jobs = [server.app, other ?? server.app].map((app) =>
        createSessionPruning({ db: app.database.db, log: silentLog }),
      );
      const deleted = await Promise.all(jobs.map((job) => job.pruneOnce()));
      expect(deleted.reduce((sum, count) => sum + count, 0)).toBe(2);
      const left = await db
        .selectFrom('authSessions')
        .select('id')
        .where('id', 'in', ids)
        .execute();
      expect(left.map((row) => row.id).sort()).toEqual([ids[2], ids[3]].sort());
      const orphanTokens = await sql<{ count: string }>`
        select count(*) as count from refresh_tokens
        where session_id not in (select id from auth_sessions)`.execute(db);
      expect(Number(orphanTokens.rows[0]!.count)).toBe(0);
    } finally {
      await other?.close();
    }
  });

  it('deletes ended sessions in bounded batches until none is left, each batch its own statement', async () => {
    const email = uniqueEmail('batches');
    await register(server.app, email, 'correct horse');
    const sessions = [];
    for (let index = 0; index < 6; index += 1) sessions.push(await signIn(email, CHROME_ON_MAC));
    const ids = (await sessionsOf(sessions[0]!.accessToken)).map((session) => session.id);
    const { db } = server.app.database;
    // Five ended 40 days ago, the sixth still open.
    const ended = ids.filter((id) => id !== ids[0]);
    await db
      .updateTable('authSessions')
      .set({ expiresAt: new Date(Date.now() - 40 * DAY_MS) })
      .where('id', 'in', ended)
      .execute();

    const runs: { sessions: number; batches: number; longestBatchMs: number }[] = [];
    const log = {
      info: (details: object) => runs.push(details as (typeof runs)[number]),
      error: () => {},
    };
    const deleted = await createSessionPruning({ db, log, batchSize: 2 }).pruneOnce();

    expect(deleted).toBeGreaterThanOrEqual(5);
    const left = await db.selectFrom('authSessions').select('id').where('id', 'in', ids).execute();
    expect(left.map((row) => row.id)).toEqual([ids[0]]);
    // Five sessions two at a time: three batches at least, then one for the sign-in events.
    expect(runs).toHaveLength(1);
    expect(runs[0]!.sessions).toBe(deleted);
    expect(runs[0]!.batches).toBeGreaterThanOrEqual(4);
    expect(runs[0]!.longestBatchMs).toBeGreaterThanOrEqual(0);
    expect(await createSessionPruning({ db, log, batchSize: 2 }).pruneOnce()).toBe(0);
  });
});
