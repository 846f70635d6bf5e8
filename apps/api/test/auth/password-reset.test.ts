import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { getProfile, login, post, register, registerAndLogin } from '../support/accounts';
import {
  linkIn,
  startTestServer,
  TEST_PUBLIC_URL,
  type TestServer,
  uniqueEmail,
} from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

describe.each(testDatabaseKinds)('password reset on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const requestReset = (email: string, headers: Record<string, string> = {}) =>
    server.app.inject({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { email },
      headers,
    });
  const confirm = (payload: { email: string; code: string; newPassword: string }) =>
    post(server.app, '/auth/reset-password/confirm', payload);
  const resetEmailTo = (email: string) =>
    server.inbox.waitFor(
      (message) => message.to.includes(email) && message.subject.includes('Reset'),
    );

  it('answers the same for a known and an unknown address', async () => {
    const email = uniqueEmail('reset-known');
    await register(server.app, email, 'correct horse');
    const known = await requestReset(email);
    const unknown = await requestReset(uniqueEmail('reset-unknown'));
    expect(known.statusCode).toBe(200);
    expect(unknown.statusCode).toBe(200);
    expect(known.body).toBe(unknown.body);
  });

  it('emails a branded link built from PUBLIC_URL (never the Host header) that sets a new password', async () => {
    const email = uniqueEmail('reset-flow');
    const oldSession = await registerAndLogin(server.app, email, 'old password');
    await requestReset(email, { host: 'evil.example', 'x-forwarded-host': 'evil.example' });

    const message = await resetEmailTo(email);
    expect(message.html).toContain('Kegel Coach');
    expect(message.text).not.toContain('evil.example');
    const link = linkIn(message);
    expect(`${link.origin}${link.pathname}`).toBe(`${TEST_PUBLIC_URL}/account/recover/new`);
    expect(link.searchParams.get('email')).toBe(email);
    const code = link.searchParams.get('code') ?? '';
    expect(Buffer.from(code, 'base64url').length).toBeGreaterThanOrEqual(16);

    const response = await confirm({ email, code, newPassword: 'new password' });
    expect(response.statusCode).toBe(200);
    expect(
      (await post(server.app, '/auth/local/login/email', { email, password: 'old password' }))
        .statusCode,
    ).toBe(401);
    await login(server.app, email, 'new password');
    // Every session signed in before the reset is over.
    expect((await getProfile(server.app, oldSession.accessToken)).statusCode).toBe(401);
    expect(
      (await post(server.app, '/auth/refresh', { refreshToken: oldSession.refreshToken }))
        .statusCode,
    ).toBe(401);
  });

  it('stores only the hash of the code', async () => {
    const email = uniqueEmail('reset-hash');
    await register(server.app, email, 'correct horse');
    await requestReset(email);
    const code = linkIn(await resetEmailTo(email)).searchParams.get('code') ?? '';
    const rows = await server.app.database.db
      .selectFrom('oneTimeCodes')
      .select('codeHash')
      .execute();
    expect(rows.some((row) => row.codeHash === code)).toBe(false);
  });

  it('lets a code work once, even when it is used twice at the same moment', async () => {
    const email = uniqueEmail('reset-race');
    await register(server.app, email, 'correct horse');
    await requestReset(email);
    const code = linkIn(await resetEmailTo(email)).searchParams.get('code') ?? '';
    const [a, b] = await Promise.all([
      confirm({ email, code, newPassword: 'first password' }),
      confirm({ email, code, newPassword: 'second password' }),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 400]);
    expect((await confirm({ email, code, newPassword: 'third password' })).statusCode).toBe(400);
  });

  it('only accepts a code with the email it was issued for', async () => {
    const email = uniqueEmail('reset-other');
    await register(server.app, email, 'correct horse');
    await requestReset(email);
    const code = linkIn(await resetEmailTo(email)).searchParams.get('code') ?? '';
    const response = await confirm({
      email: uniqueEmail('attacker'),
      code,
      newPassword: 'new password',
    });
    expect(response.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'Failed to change password. Link is invalid or has expired.',
    });
    // Case does not matter for the right address.
    expect(
      (await confirm({ email: email.toUpperCase(), code, newPassword: 'new password' })).statusCode,
    ).toBe(200);
  });

  it('kills older codes when a newer one is requested', async () => {
    const email = uniqueEmail('reset-newer');
    await register(server.app, email, 'correct horse');
    await requestReset(email);
    const firstCode = linkIn(await resetEmailTo(email)).searchParams.get('code') ?? '';
    server.inbox.clear();
    await requestReset(email);
    const secondCode = linkIn(await resetEmailTo(email)).searchParams.get('code') ?? '';
    expect(secondCode).not.toBe(firstCode);
    expect(
      (await confirm({ email, code: firstCode, newPassword: 'new password' })).statusCode,
    ).toBe(400);
    expect(
      (await confirm({ email, code: secondCode, newPassword: 'new password' })).statusCode,
    ).toBe(200);
  });

  it('expires codes after 60 minutes', async () => {
    const email = uniqueEmail('reset-expired');
    await register(server.app, email, 'correct horse');
    await requestReset(email);
    const code = linkIn(await resetEmailTo(email)).searchParams.get('code') ?? '';
    const row = await server.app.database.db
      .selectFrom('oneTimeCodes')
      .select(
        sql<number>`extract(epoch from (one_time_codes.expires_at - one_time_codes.created_at))::float8`.as(
          'validSeconds',
        ),
      )
      .innerJoin('users', 'users.id', 'oneTimeCodes.userId')
      .where('users.email', '=', email)
      .executeTakeFirstOrThrow();
    expect(row.validSeconds).toBeLessThanOrEqual(60 * 60);
    await server.app.database.db
      .updateTable('oneTimeCodes')
      .set({ expiresAt: sql<Date>`now() - interval '1 second'` })
      .where('purpose', '=', 'password_reset')
      .execute();
    expect((await confirm({ email, code, newPassword: 'new password' })).statusCode).toBe(400);
  });

  it('caps reset emails per address: the fourth within an hour answers the same but sends nothing', async () => {
    const email = uniqueEmail('reset-cap');
    await register(server.app, email, 'correct horse');
    const answers = [];
    for (let attempt = 0; attempt < 4; attempt += 1) answers.push((await requestReset(email)).body);
    expect(new Set(answers).size).toBe(1);
    // Three arrive; wait for them, then give a fourth the time it would have needed.
    for (let count = 0; count < 50; count += 1) {
      if (server.inbox.messages().filter((message) => message.to.includes(email)).length >= 3)
        break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(server.inbox.messages().filter((message) => message.to.includes(email))).toHaveLength(3);
  });

  it('validates the confirmation with the contract messages', async () => {
    const response = await confirm({ email: 'x', code: '', newPassword: 'short' });
    expect(response.json()).toMatchObject({
      statusCode: 400,
      // The contract's bare 'Required' is answered naming its field.
      message: ['Invalid email', 'code is required', 'Password is too short'],
      fields: [
        { field: 'email', message: 'Invalid email' },
        { field: 'code', message: 'code is required' },
        { field: 'newPassword', message: 'Password is too short' },
      ],
    });
  });
});
