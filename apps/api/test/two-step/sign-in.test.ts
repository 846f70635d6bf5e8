// With two-step sign-in on, no pathway gives tokens for the first step alone: the password,
// Google and Apple each answer a single-use mfaToken, and only a code (once) turns it into a
// session. Through HTTP, against the identity sandbox for Google and Apple.
import { twoStepMessages, type TokenPair } from '@kegel/contract';
import type { TestIdentity } from '@kegel/sandbox/identity-sandbox';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { post, registerAndLogin, resetPasswordThroughLink } from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import {
  appCode,
  passwordStep,
  turnOnTwoStep,
  useMovableClock,
  verifySignIn,
  waitForNextCode,
  wrongCodeFor,
} from '../support/two-step';

const PASSWORD = 'correct horse';

describe.each(testDatabaseKinds)('two-step sign-in on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());
  beforeEach(() => useMovableClock());
  afterEach(() => vi.useRealTimers());

  /** A member with two-step sign-in on, the session he turned it on from and his codes. */
  async function memberWithTwoStep(label: string) {
    const email = uniqueEmail(label);
    const tokens = await registerAndLogin(server.app, email, PASSWORD);
    const { secret, recoveryCodes } = await turnOnTwoStep(server.app, tokens.accessToken);
    // The confirmation used this step's code.
    waitForNextCode();
    return { email, tokens, secret, recoveryCodes };
  }

  async function sessionMethods(accessToken: string): Promise<Array<string | null>> {
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/users/sessions',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response
      .json<{ data: Array<{ method: string | null; current: boolean }> }>()
      .data.filter((session) => session.current)
      .map((session) => session.method);
  }

  describe('with the password', () => {
    it('answers an mfaToken and no tokens; the code then gives a working session', async () => {
      const { email, secret } = await memberWithTwoStep('password');
      const response = await post(server.app, '/auth/local/login/email', {
        email,
        password: PASSWORD,
      });
      expect(response.statusCode).toBe(200);
      const body = response.json<Record<string, unknown>>();
      expect(Object.keys(body).sort()).toEqual(['mfaRequired', 'mfaToken']);
      expect(body.mfaRequired).toBe(true);

      const verified = await verifySignIn(server.app, {
        mfaToken: String(body.mfaToken),
        code: appCode(secret),
      });
      expect(verified.statusCode, verified.body).toBe(200);
      const pair = verified.json<TokenPair>();
      expect(await sessionMethods(pair.accessToken)).toEqual(['password']);
    });

    it('still answers 401 for a wrong password, with no token', async () => {
      const { email } = await memberWithTwoStep('wrong-password');
      const response = await post(server.app, '/auth/local/login/email', {
        email,
        password: 'wrong horse',
      });
      expect(response.statusCode).toBe(401);
      expect(response.body).not.toContain('mfaToken');
    });

    it('takes an mfaToken once', async () => {
      const { email, secret } = await memberWithTwoStep('single-use');
      const mfaToken = await passwordStep(server.app, email, PASSWORD);
      expect((await verifySignIn(server.app, { mfaToken, code: appCode(secret) })).statusCode).toBe(
        200,
      );
      waitForNextCode();
      const again = await verifySignIn(server.app, { mfaToken, code: appCode(secret) });
      expect(again.statusCode).toBe(401);
      expect(again.json()).toMatchObject({ message: twoStepMessages.signInExpired });
    });

    it('refuses a code used once already, even within its window', async () => {
      const { email, secret } = await memberWithTwoStep('replay');
      const code = appCode(secret);
      const first = await verifySignIn(server.app, {
        mfaToken: await passwordStep(server.app, email, PASSWORD),
        code,
      });
      expect(first.statusCode).toBe(200);
      const replay = await verifySignIn(server.app, {
        mfaToken: await passwordStep(server.app, email, PASSWORD),
        code,
      });
      expect(replay.statusCode).toBe(401);
      expect(replay.json()).toMatchObject({ message: twoStepMessages.wrongCode });
      // The code of the step before is older still: refused too.
      const older = await verifySignIn(server.app, {
        mfaToken: await passwordStep(server.app, email, PASSWORD),
        code: appCode(secret, Date.now() - 30_000),
      });
      expect(older.statusCode).toBe(401);
    });

    it('takes the same code once when it arrives twice at the same moment', async () => {
      const { email, secret } = await memberWithTwoStep('parallel');
      const code = appCode(secret);
      const tokens = await Promise.all([
        passwordStep(server.app, email, PASSWORD),
        passwordStep(server.app, email, PASSWORD),
      ]);
      const answers = await Promise.all(
        tokens.map((mfaToken) => verifySignIn(server.app, { mfaToken, code })),
      );
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 401]);
    });

    it('takes a recovery code once', async () => {
      const { email, recoveryCodes } = await memberWithTwoStep('recovery');
      const recoveryCode = recoveryCodes[0]!;
      const first = await verifySignIn(server.app, {
        mfaToken: await passwordStep(server.app, email, PASSWORD),
        recoveryCode,
      });
      expect(first.statusCode, first.body).toBe(200);
      const second = await verifySignIn(server.app, {
        mfaToken: await passwordStep(server.app, email, PASSWORD),
        recoveryCode,
      });
      expect(second.statusCode).toBe(401);
      expect(second.json()).toMatchObject({ message: twoStepMessages.wrongRecoveryCode });
    });

    it('lets an mfaToken expire after 5 minutes', async () => {
      const { email, secret } = await memberWithTwoStep('expiry');
      const mfaToken = await passwordStep(server.app, email, PASSWORD);
      await server.app.database.db
        .updateTable('twoStepChallenges')
        .set({ expiresAt: sql<Date>`now() - interval '1 second'` })
        .where('consumedAt', 'is', null)
        .where('createdAt', '>', sql<Date>`now() - interval '1 minute'`)
        .where(
          'userId',
          '=',
          server.app.database.db.selectFrom('users').select('id').where('email', '=', email),
        )
        .execute();
      const late = await verifySignIn(server.app, { mfaToken, code: appCode(secret) });
      expect(late.statusCode).toBe(401);
      expect(late.json()).toMatchObject({ message: twoStepMessages.signInExpired });
    });

    it('lives 5 minutes', async () => {
      const { email } = await memberWithTwoStep('lifetime');
      await passwordStep(server.app, email, PASSWORD);
      const row = await server.app.database.db
        .selectFrom('twoStepChallenges')
        .innerJoin('users', 'users.id', 'twoStepChallenges.userId')
        .select(
          sql<number>`extract(epoch from two_step_challenges.expires_at - two_step_challenges.created_at)`.as(
            'seconds',
          ),
        )
        .where('users.email', '=', email)
        .executeTakeFirstOrThrow();
      expect(Number(row.seconds)).toBeCloseTo(300, 0);
    });

    it('kills the mfaToken when the password changes in between', async () => {
      const { email, secret } = await memberWithTwoStep('changed');
      const mfaToken = await passwordStep(server.app, email, PASSWORD);
      await resetPasswordThroughLink(server, email, 'battery staple horse');
      const verified = await verifySignIn(server.app, { mfaToken, code: appCode(secret) });
      expect(verified.statusCode).toBe(401);
      expect(verified.json()).toMatchObject({ message: twoStepMessages.signInExpired });
    });

    it('ends an mfaToken after five wrong codes', async () => {
      const { email, secret } = await memberWithTwoStep('five-wrong');
      const mfaToken = await passwordStep(server.app, email, PASSWORD);
      // From addresses of their own, so the per-address lockout does not answer first.
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const wrong = await verifySignIn(
          server.app,
          { mfaToken, code: wrongCodeFor(secret) },
          `192.0.2.${10 + attempt}`,
        );
        expect(wrong.statusCode).toBe(401);
      }
      const right = await verifySignIn(
        server.app,
        { mfaToken, code: appCode(secret) },
        '192.0.2.99',
      );
      expect(right.statusCode).toBe(401);
      expect(right.json()).toMatchObject({ message: twoStepMessages.signInExpired });
    });

    it('counts wrong codes as failed sign-ins: the same lockout as wrong passwords', async () => {
      const { email, secret } = await memberWithTwoStep('lockout');
      const address = '203.0.113.44';
      const passwordFrom = () =>
        server.app.inject({
          method: 'POST',
          url: '/api/auth/local/login/email',
          payload: { email, password: PASSWORD },
          remoteAddress: address,
        });
      const mfaToken = (await passwordFrom()).json<{ mfaToken: string }>().mfaToken;
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const wrong = await verifySignIn(
          server.app,
          { mfaToken, code: wrongCodeFor(secret) },
          address,
        );
        expect(wrong.statusCode).toBe(401);
      }
      // The sixth try from there waits, whether a code or the right password.
      const blocked = await passwordFrom();
      expect(blocked.statusCode).toBe(429);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    });
    it('does not let a right password clear the wrong codes before it', async () => {
      const { email, secret } = await memberWithTwoStep('no-reset');
      const address = '203.0.113.45';
      const passwordFrom = () =>
        server.app.inject({
          method: 'POST',
          url: '/api/auth/local/login/email',
          payload: { email, password: PASSWORD },
          remoteAddress: address,
        });
      // Four wrong codes, the right password again (a new mfaToken), one more wrong code.
      let mfaToken = (await passwordFrom()).json<{ mfaToken: string }>().mfaToken;
      for (let attempt = 0; attempt < 4; attempt += 1) {
        await verifySignIn(server.app, { mfaToken, code: wrongCodeFor(secret) }, address);
      }
      mfaToken = (await passwordFrom()).json<{ mfaToken: string }>().mfaToken;
      const fifth = await verifySignIn(
        server.app,
        { mfaToken, code: wrongCodeFor(secret) },
        address,
      );
      expect(fifth.statusCode).toBe(401);
      // Five failures in all: the next try from there waits.
      const blocked = await verifySignIn(server.app, { mfaToken, code: appCode(secret) }, address);
      expect(blocked.statusCode).toBe(429);
    });
  });

  describe('with Google and Apple', () => {
    function newSubject(label: string): string {
      return `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
    }

    async function signInWithGoogle(identity: TestIdentity) {
      const code = await server.app.identitySandbox!.issueGoogleCode(identity);
      return post(server.app, '/auth/oauth/google/verify-token', { code, clientType: 'WEB' });
    }

    async function signInWithApple(sub: string, email: string) {
      const sandbox = server.app.identitySandbox!;
      const nonce = (await post(server.app, '/auth/oauth/apple/nonce', {})).json<{
        nonce: string;
      }>().nonce;
      const token = await sandbox.signIdToken('apple', {
        ...sandbox.idTokenClaims('apple', { sub, email, emailVerified: true }),
        nonce,
      });
      return post(server.app, '/auth/oauth/apple/verify-token', { token });
    }

    it('asks Google sign-in for the code too, and opens a Google session with it', async () => {
      const identity = { sub: newSubject('g'), email: uniqueEmail('google'), emailVerified: true };
      const first = await signInWithGoogle(identity);
      expect(first.statusCode, first.body).toBe(200);
      const { secret } = await turnOnTwoStep(server.app, first.json<TokenPair>().accessToken);
      waitForNextCode();

      const again = await signInWithGoogle(identity);
      expect(again.statusCode, again.body).toBe(200);
      const body = again.json<{ mfaRequired?: boolean; mfaToken?: string; accessToken?: string }>();
      expect(body.mfaRequired).toBe(true);
      expect(body.accessToken).toBeUndefined();
      const verified = await verifySignIn(server.app, {
        mfaToken: String(body.mfaToken),
        code: appCode(secret),
      });
      expect(verified.statusCode, verified.body).toBe(200);
      expect(await sessionMethods(verified.json<TokenPair>().accessToken)).toEqual(['google']);
    });

    it('asks Apple sign-in for the code too', async () => {
      const sub = newSubject('a');
      const email = uniqueEmail('apple');
      const first = await signInWithApple(sub, email);
      expect(first.statusCode, first.body).toBe(200);
      const { recoveryCodes } = await turnOnTwoStep(
        server.app,
        first.json<TokenPair>().accessToken,
      );

      const again = await signInWithApple(sub, email);
      expect(again.statusCode, again.body).toBe(200);
      const body = again.json<{ mfaRequired?: boolean; mfaToken?: string; accessToken?: string }>();
      expect(body.mfaRequired).toBe(true);
      expect(body.accessToken).toBeUndefined();
      const verified = await verifySignIn(server.app, {
        mfaToken: String(body.mfaToken),
        recoveryCode: recoveryCodes[0]!,
      });
      expect(verified.statusCode, verified.body).toBe(200);
      expect(await sessionMethods(verified.json<TokenPair>().accessToken)).toEqual(['apple']);
    });
  });

  describe('changes of credentials', () => {
    it('asks a password change for a code while it is on', async () => {
      const { tokens, secret, recoveryCodes } = await memberWithTwoStep('change-password');
      const change = (body: Record<string, string>) =>
        post(server.app, '/auth/change-password', body, tokens.accessToken);
      const passwords = { oldPassword: PASSWORD, newPassword: 'a much longer horse' };

      const missing = await change(passwords);
      expect(missing.statusCode).toBe(400);
      expect(missing.json()).toMatchObject({ message: twoStepMessages.secondFactorNeeded });
      const wrong = await change({ ...passwords, code: wrongCodeFor(secret) });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json()).toMatchObject({ message: twoStepMessages.wrongSecondFactor });
      const usedRecovery = await change({ ...passwords, code: recoveryCodes[1]! });
      expect(usedRecovery.statusCode, usedRecovery.body).toBe(200);
    });

    it('asks an email change for a code while it is on', async () => {
      const { tokens, secret } = await memberWithTwoStep('change-email');
      const change = (body: Record<string, string>) =>
        post(server.app, '/auth/change-email', body, tokens.accessToken);
      const request = { newEmail: uniqueEmail('moved'), password: PASSWORD };

      const missing = await change(request);
      expect(missing.statusCode).toBe(400);
      expect(missing.json()).toMatchObject({ message: twoStepMessages.secondFactorNeeded });
      const withCode = await change({ ...request, code: appCode(secret) });
      expect(withCode.statusCode, withCode.body).toBe(200);
    });

    it('asks no code of a member without two-step sign-in', async () => {
      const email = uniqueEmail('plain');
      const tokens = await registerAndLogin(server.app, email, PASSWORD);
      const changed = await post(
        server.app,
        '/auth/change-password',
        { oldPassword: PASSWORD, newPassword: 'a much longer horse' },
        tokens.accessToken,
      );
      expect(changed.statusCode, changed.body).toBe(200);
    });
  });
});
