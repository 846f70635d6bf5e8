// Operators of the support desk (ADR 020): roles granted and taken only by the operator command,
// and the second factor a session must have proved within 12 hours, through HTTP.
import { type OperatorStatus, supportDeskMessages } from '@kegel/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { login, registerAndLogin } from '../support/accounts';
import {
  addPasskey,
  createPasskeyAuthenticator,
  signInWithPasskey,
} from '../support/passkey-authenticator';
import {
  callApi,
  makeOperator,
  OPERATOR_PASSWORD,
  operatorCommand,
  testAuditTrail,
} from '../support/operators';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import {
  appCode,
  turnOnTwoStep,
  useMovableClock,
  waitForNextCode,
  wrongCodeFor,
} from '../support/two-step';

describe.each(testDatabaseKinds)('operators of the support desk on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());
  beforeEach(() => useMovableClock());
  afterEach(() => vi.useRealTimers());

  async function status(accessToken: string): Promise<OperatorStatus> {
    const response = await callApi(server.app, 'GET', '/users/operator', accessToken);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    return response.json<OperatorStatus>();
  }

  async function refresh(
    refreshToken: string,
  ): Promise<{ accessToken: string; refreshToken: string }> {
    const response = await callApi(server.app, 'POST', '/auth/refresh', undefined, {
      refreshToken,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  async function auditActions(): Promise<string[]> {
    const rows = await server.app.database.db
      .selectFrom('auditEvents')
      .select(['action', 'targetEmail', 'actorRole'])
      .orderBy('sequence')
      .execute();
    return rows.map((row) => `${row.action} ${row.targetEmail} by ${row.actorRole}`);
  }

  it('grants and takes roles only through the command, printing and auditing each change', async () => {
    const email = uniqueEmail('role');
    const { accessToken } = await registerAndLogin(server.app, email, OPERATOR_PASSWORD);
    expect((await status(accessToken)).role).toBeNull();

    const granted = await operatorCommand(server.app, [
      'grant',
      email.toUpperCase(),
      '--role',
      'support',
    ]);
    expect(granted).toMatchObject({ code: 0, out: [`${email} is now support (was: no role).`] });
    expect((await status(accessToken)).role).toBe('support');
    const promoted = await operatorCommand(server.app, ['grant', email, '--role=admin']);
    expect(promoted.out).toEqual([`${email} is now admin (was: support).`]);
    const listed = await operatorCommand(server.app, ['list']);
    expect(listed.out.some((line) => line.startsWith(`${email}  admin  since `))).toBe(true);
    const revoked = await operatorCommand(server.app, ['revoke', email]);
    expect(revoked.out).toEqual([`${email} is no longer an operator (was: admin).`]);
    expect((await status(accessToken)).role).toBeNull();
    const again = await operatorCommand(server.app, ['revoke', email]);
    expect(again.out).toEqual([`${email} had no operator role: nothing changed.`]);

    expect((await auditActions()).filter((line) => line.includes(email))).toEqual([
      `operator.grant-role ${email} by command line`,
      `operator.grant-role ${email} by command line`,
      `operator.revoke-role ${email} by command line`,
    ]);
  });

  it('refuses an unknown account and a malformed command, changing nothing', async () => {
    const before = await auditActions();
    const unknown = await operatorCommand(server.app, [
      'grant',
      uniqueEmail('nobody'),
      '--role',
      'admin',
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.errors[0]).toMatch(/^No account has the email .*: the person signs up first/);
    for (const args of [
      ['grant', 'a@example.com'],
      ['grant', 'a@example.com', '--role', 'owner'],
      ['promote', 'a@example.com'],
      ['revoke'],
      [],
    ]) {
      const result = await operatorCommand(server.app, args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.errors.join('\n')).toContain(
        'npm run operator -- grant <email> --role support|admin',
      );
    }
    expect(await auditActions()).toEqual(before);
  });

  it('opens the desk for 12 hours to a session that signed in with its two-step code', async () => {
    const operator = await makeOperator(server.app, 'support');
    const opened = await status(operator.accessToken);
    expect(opened).toMatchObject({ role: 'support', hasSecondFactor: true, hasTwoStep: true });
    const openUntil = new Date(opened.deskOpenUntil ?? 0).getTime();
    expect(Math.abs(openUntil - (Date.now() + 12 * 3600_000))).toBeLessThan(60_000);

    // Renewing the tokens keeps the session, and what it proved: open 11 hours later...
    vi.setSystemTime(Date.now() + 11 * 3600_000);
    const renewed = await refresh(operator.refreshToken);
    expect((await status(renewed.accessToken)).deskOpenUntil).toBe(opened.deskOpenUntil);
    // ...and closed once 12 hours have passed.
    vi.setSystemTime(openUntil + 1000);
    const later = await refresh(renewed.refreshToken);
    expect((await status(later.accessToken)).deskOpenUntil).toBeNull();
  });

  it('asks a session opened without the second factor to prove it (step-up), and refuses a wrong code', async () => {
    const operator = await makeOperator(server.app, 'admin');
    // A session of the same operator from before two-step sign-in was on has no second factor:
    // made here as a password sign-in of an account whose two-step is then turned on.
    const email = uniqueEmail('stepup');
    const plain = await registerAndLogin(server.app, email, OPERATOR_PASSWORD);
    const { secret } = await turnOnTwoStep(server.app, plain.accessToken);
    await operatorCommand(server.app, ['grant', email, '--role', 'support']);
    const before = await status(plain.accessToken);
    expect(before).toMatchObject({ role: 'support', hasSecondFactor: true, deskOpenUntil: null });

    const wrong = await callApi(server.app, 'POST', '/auth/mfa/step-up', plain.accessToken, {
      code: wrongCodeFor(secret),
    });
    expect(wrong.statusCode).toBe(400);
    expect((await status(plain.accessToken)).deskOpenUntil).toBeNull();

    waitForNextCode();
    const proved = await callApi(server.app, 'POST', '/auth/mfa/step-up', plain.accessToken, {
      code: appCode(secret),
    });
    expect(proved.statusCode, proved.body).toBe(200);
    expect((await status(plain.accessToken)).deskOpenUntil).not.toBeNull();
    expect((await status(operator.accessToken)).role).toBe('admin');
  });

  it('answers 409 to a step-up without two-step sign-in, and counts a passkey sign-in as the second factor', async () => {
    const email = uniqueEmail('passkey-op');
    const { accessToken } = await registerAndLogin(server.app, email, OPERATOR_PASSWORD);
    await operatorCommand(server.app, ['grant', email, '--role', 'support']);
    expect(await status(accessToken)).toMatchObject({
      hasSecondFactor: false,
      deskOpenUntil: null,
    });
    const stepUp = await callApi(server.app, 'POST', '/auth/mfa/step-up', accessToken, {
      code: '123456',
    });
    expect(stepUp.statusCode).toBe(409);

    // The passkey comes a second after the grant. The test's clock (useMovableClock) moves in
    // steps of 20 ms, which PGlite's now() follows: on a fast machine the grant and the passkey
    // could otherwise carry the same time, and a factor no newer than the grant opens the desk.
    vi.setSystemTime(Date.now() + 1000);
    const authenticator = createPasskeyAuthenticator();
    await addPasskey(server.app, accessToken, authenticator);
    const withPassword = await login(server.app, email, OPERATOR_PASSWORD);
    expect(await status(withPassword.accessToken)).toMatchObject({
      hasPasskey: true,
      hasSecondFactor: true,
      deskOpenUntil: null,
    });
    // Added after the role was granted, the passkey opens the desk only once it is a day old
    // (whoever holds the password or a session could have added it).
    const tooSoon = await signInWithPasskey(server.app, authenticator);
    expect(tooSoon.statusCode, tooSoon.body).toBe(200);
    const early = await status(tooSoon.json<{ accessToken: string }>().accessToken);
    expect(early.deskOpenUntil).toBeNull();
    expect(Date.parse(early.deskClosedUntil ?? '') - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    const refused = await callApi(
      server.app,
      'GET',
      '/ops/members?query=x',
      tooSoon.json<{ accessToken: string }>().accessToken,
    );
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ message: supportDeskMessages.secondFactorTooNew });

    vi.setSystemTime(Date.parse(early.deskClosedUntil ?? '') + 1000);
    const passkeySignIn = await signInWithPasskey(server.app, authenticator);
    expect(passkeySignIn.statusCode, passkeySignIn.body).toBe(200);
    const { accessToken: passkeyToken } = passkeySignIn.json<{ accessToken: string }>();
    expect(await status(passkeyToken)).toMatchObject({
      deskOpenUntil: expect.any(String),
      deskClosedUntil: null,
    });
  });

  it('keeps the audit trail append-only: the database refuses edits and removals', async () => {
    await makeOperator(server.app, 'support', 'append-only');
    const { db } = server.app.database;
    const last = await db
      .selectFrom('auditEvents')
      .select('id')
      .orderBy('sequence', 'desc')
      .executeTakeFirstOrThrow();
    await expect(
      db.updateTable('auditEvents').set({ reason: 'quietly' }).where('id', '=', last.id).execute(),
    ).rejects.toThrow(/audit rows cannot be changed/);
    await expect(db.deleteFrom('auditEvents').where('id', '=', last.id).execute()).rejects.toThrow(
      /audit rows cannot be deleted/,
    );
    const report = await testAuditTrail().verify(db);
    expect(report.problems).toEqual([]);
    expect(report.rows).toBeGreaterThan(0);
  });
});
