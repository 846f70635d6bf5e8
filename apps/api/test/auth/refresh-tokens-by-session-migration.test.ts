import type { TokenPair } from '@kegel/contract';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';

import { openDatabase } from '../../src/db/database';
import { hashSecret } from '../../src/security/keys';
import { createSessionTokens } from '../../src/security/session-tokens';
import { getProfile, post } from '../support/accounts';
import { buildTestApp, TEST_TOKEN_SECRET, testConfig } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const BEFORE_TOKENS_BY_SESSION = '0028-time-ordered-session-ids.sql';

/**
 * Migration 0029 finds a refresh token by its session and hash together, and drops the index of
 * the hash alone. The members signed in before it keep their sessions: their tokens renew and
 * sign out as before.
 */
describe.each(testDatabaseKinds)('refresh tokens found by their session on $name', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('renews and signs out a session opened before the migration; the hash has no index of its own', async () => {
    const database = await kind.create({ empty: true });
    cleanups.push(() => database.drop());
    const before = await openDatabase(testConfig(database).database, {
      through: BEFORE_TOKENS_BY_SESSION,
    });
    const tokens = createSessionTokens(TEST_TOKEN_SECRET);
    const expiresAt = new Date(Date.now() + 24 * 60 * 60 * 1000);
    const user = await before.db
      .insertInto('users')
      .values({ email: 'signed.in.before@example.com' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const issued: Array<{ sessionId: string; refreshToken: string }> = [];
    for (const deviceLabel of ['Safari on iPhone', 'Chrome on macOS']) {
      const session = await before.db
        .insertInto('authSessions')
        .values({ userId: user.id, expiresAt, deviceLabel })
        .returning('id')
        .executeTakeFirstOrThrow();
      const refresh = await tokens.issueRefreshToken({ sessionId: session.id, expiresAt });
      await before.db
        .insertInto('refreshTokens')
        .values({ sessionId: session.id, tokenHash: hashSecret(refresh.secret) })
        .execute();
      issued.push({ sessionId: session.id, refreshToken: refresh.token });
    }
    await before.close();

    const app = await buildTestApp(database);
    cleanups.push(() => app.close());
    const [phone, laptop] = issued;
    const renewed = await post(app, '/auth/refresh', { refreshToken: phone!.refreshToken });
    expect(renewed.statusCode, renewed.body).toBe(200);
    const pair = renewed.json<TokenPair>();
    expect((await getProfile(app, pair.accessToken)).statusCode).toBe(200);
    expect((await post(app, '/auth/refresh', { refreshToken: pair.refreshToken })).statusCode).toBe(
      200,
    );

    expect(
      (await post(app, '/auth/logout', { refreshToken: laptop!.refreshToken })).statusCode,
    ).toBe(200);
    const sessions = await app.database.db
      .selectFrom('authSessions')
      .select(['id', 'revokedReason'])
      .execute();
    expect(sessions).toHaveLength(2);
    expect(sessions).toEqual(
      expect.arrayContaining([
        { id: phone!.sessionId, revokedReason: null },
        { id: laptop!.sessionId, revokedReason: 'logout' },
      ]),
    );

    const indexes = await sql<{ name: string; definition: string }>`
      select indexname as name, indexdef as definition from pg_indexes
      where tablename = 'refresh_tokens' order by indexname`.execute(app.database.db);
    expect(indexes.rows.map((index) => index.name)).toEqual([
      'refresh_tokens_pkey',
      'refresh_tokens_session_token',
    ]);
    expect(indexes.rows[1]?.definition).toMatch(/UNIQUE INDEX .* \(session_id, token_hash\)/);
  });
});
