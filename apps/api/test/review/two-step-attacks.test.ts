// Adversarial review of two-step sign-in (ADR 018): attacks on the code step, the settings and
// the pathways that give tokens. Each test would fail if its attack worked; all hold today.
import { type TokenPair, twoStepMessages } from '@kegel/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { getProfile, post, registerAndLogin, resetPasswordThroughLink } from '../support/accounts';
import { linkIn, startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import {
  appCode,
  confirmTwoStep,
  passwordStep,
  setUpTwoStep,
  turnOnTwoStep,
  useMovableClock,
  verifySignIn,
  waitForNextCode,
  wrongCodeFor,
} from '../support/two-step';

const PASSWORD = 'correct horse';
const FIREFOX_ON_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

describe.each(testDatabaseKinds)('review: two-step sign-in under attack on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A member with two-step sign-in on: his address, secret, recovery codes and first session. */
  async function memberWithTwoStep(label: string) {
    useMovableClock();
    const email = uniqueEmail(label);
    const tokens = await registerAndLogin(server.app, email, PASSWORD);
    const { secret, recoveryCodes } = await turnOnTwoStep(server.app, tokens.accessToken);
    // The code that turned it on took this step: the next sign-in's code is the next step's.
    waitForNextCode();
    return { email, secret, recoveryCodes, tokens };
  }

  it("refuses an mfaToken with another account's code, and a code of this step across two mfaTokens", async () => {
    const victim = await memberWithTwoStep('review-victim');
    const attacker = await memberWithTwoStep('review-attacker');
    const victimsToken = await passwordStep(server.app, victim.email, PASSWORD);
    const withOtherCode = await verifySignIn(server.app, {
      mfaToken: victimsToken,
      code: appCode(attacker.secret),
    });
    expect(withOtherCode.statusCode).toBe(401);

    // One code seen over the shoulder, two mfaTokens in the same 30 seconds: one session only.
    const first = await passwordStep(server.app, victim.email, PASSWORD);
    const second = await passwordStep(server.app, victim.email, PASSWORD);
    const code = appCode(victim.secret);
    expect((await verifySignIn(server.app, { mfaToken: first, code })).statusCode).toBe(200);
    expect((await verifySignIn(server.app, { mfaToken: second, code })).statusCode).toBe(401);
  });

  it('lets one recovery code open one session when two mfaTokens race with it', async () => {
    const member = await memberWithTwoStep('review-recovery-race');
    const [first, second] = await Promise.all([
      passwordStep(server.app, member.email, PASSWORD),
      passwordStep(server.app, member.email, PASSWORD),
    ]);
    const recoveryCode = member.recoveryCodes[0]!;
    const answers = await Promise.all([
      verifySignIn(server.app, { mfaToken: first, recoveryCode }),
      verifySignIn(server.app, { mfaToken: second, recoveryCode }),
    ]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 401]);
  });

  it('counts wrong codes across fresh mfaTokens: from one address the sixth is refused, right or not', async () => {
    const member = await memberWithTwoStep('review-token-hopping');
    const wrong = wrongCodeFor(member.secret);
    // A new mfaToken before each guess, so no token's own limit of five is ever reached.
    for (let guess = 0; guess < 5; guess += 1) {
      const mfaToken = await passwordStep(server.app, member.email, PASSWORD);
      expect((await verifySignIn(server.app, { mfaToken, code: wrong })).statusCode).toBe(401);
    }
    // The address is now held: not even a new mfaToken, nor the right code, gets through.
    const again = await post(server.app, '/auth/local/login/email', {
      email: member.email,
      password: PASSWORD,
    });
    expect(again.statusCode).toBe(429);
  });

  it('kills an mfaToken taken before a password reset, and the reset leaves the code step on', async () => {
    const member = await memberWithTwoStep('review-token-after-reset');
    const beforeReset = await passwordStep(server.app, member.email, PASSWORD);
    await resetPasswordThroughLink(server, member.email, 'a brand new password');
    const code = appCode(member.secret);
    expect((await verifySignIn(server.app, { mfaToken: beforeReset, code })).statusCode).toBe(401);
    // The reset leaves two-step sign-in on: the new password alone still opens nothing.
    const mfaToken = await passwordStep(server.app, member.email, 'a brand new password');
    expect(mfaToken).toEqual(expect.any(String));
  });

  it('gives no tokens on any pathway but the code step: reset, refresh, not-me all answer without a session', async () => {
    const member = await memberWithTwoStep('review-pathways');
    // A sign-in with password and code from a new device: the owner is told, with the link.
    const mfaToken = await server.app.inject({
      method: 'POST',
      url: '/api/auth/local/login/email',
      headers: { 'user-agent': FIREFOX_ON_WINDOWS },
      remoteAddress: '198.51.100.9',
      payload: { email: member.email, password: PASSWORD },
    });
    const opened = await verifySignIn(
      server.app,
      { mfaToken: mfaToken.json<{ mfaToken: string }>().mfaToken, code: appCode(member.secret) },
      '198.51.100.9',
    );
    expect(opened.statusCode, opened.body).toBe(200);
    // Someone with the password waits at the code step meanwhile.
    const waiting = await passwordStep(server.app, member.email, PASSWORD);

    const notice = await server.inbox.waitFor(
      (mail) =>
        mail.to.includes(member.email) &&
        mail.subject === 'New sign-in to your Kegel Coach account',
    );
    const reported = await post(server.app, '/auth/sign-ins/not-me', {
      code: linkIn(notice).searchParams.get('code'),
    });
    expect(reported.statusCode, reported.body).toBe(200);
    expect(Object.keys(reported.json<Record<string, unknown>>())).toEqual(['message']);
    waitForNextCode();
    const late = await verifySignIn(server.app, {
      mfaToken: waiting,
      code: appCode(member.secret),
    });
    expect(late.statusCode).toBe(401);
    const refreshed = await post(server.app, '/auth/refresh', {
      refreshToken: opened.json<TokenPair>().refreshToken,
    });
    expect(refreshed.statusCode).toBe(401);
    expect((await getProfile(server.app, member.tokens.accessToken)).statusCode).toBe(401);
  });

  it('refuses to turn off, make new recovery codes or set up again without a current code', async () => {
    const member = await memberWithTwoStep('review-settings');
    const token = member.tokens.accessToken;
    expect((await post(server.app, '/auth/mfa/totp/disable', {}, token)).statusCode).toBe(400);
    const wrongOff = await post(
      server.app,
      '/auth/mfa/totp/disable',
      { code: wrongCodeFor(member.secret) },
      token,
    );
    expect(wrongOff.statusCode).toBe(400);
    expect((await post(server.app, '/auth/mfa/recovery-codes', {}, token)).statusCode).toBe(400);
    const wrongRenew = await post(
      server.app,
      '/auth/mfa/recovery-codes',
      { code: wrongCodeFor(member.secret) },
      token,
    );
    expect(wrongRenew.statusCode).toBe(400);
    // A stolen session cannot swap in its own secret while it is on.
    expect((await post(server.app, '/auth/mfa/totp/setup', {}, token)).statusCode).toBe(409);
    // Still on, with the owner's secret.
    waitForNextCode();
    const mfaToken = await passwordStep(server.app, member.email, PASSWORD);
    const code = appCode(member.secret);
    expect((await verifySignIn(server.app, { mfaToken, code })).statusCode).toBe(200);
  });

  it('refuses to confirm with a code of a secret a newer setup replaced', async () => {
    useMovableClock();
    const email = uniqueEmail('review-stale-secret');
    const tokens = await registerAndLogin(server.app, email, PASSWORD);
    const stale = await setUpTwoStep(server.app, tokens.accessToken);
    const fresh = await setUpTwoStep(server.app, tokens.accessToken);
    const withStale = await confirmTwoStep(server.app, tokens.accessToken, appCode(stale.secret));
    expect(withStale.statusCode).toBe(400);
    const withFresh = await confirmTwoStep(server.app, tokens.accessToken, appCode(fresh.secret));
    expect(withFresh.statusCode, withFresh.body).toBe(200);
  });

  it('keeps the secret, the recovery codes and the mfaToken out of the data export', async () => {
    const member = await memberWithTwoStep('review-export');
    const pending = await passwordStep(server.app, member.email, PASSWORD);
    const exported = await server.app.inject({
      method: 'GET',
      url: '/api/users/export',
      headers: { authorization: `Bearer ${member.tokens.accessToken}` },
    });
    expect(exported.statusCode).toBe(200);
    const body = exported.body.toLowerCase();
    expect(body).not.toContain(member.secret.toLowerCase());
    for (const recoveryCode of member.recoveryCodes) {
      expect(body).not.toContain(recoveryCode.replace(/-/g, '').toLowerCase());
      expect(body).not.toContain(recoveryCode.toLowerCase());
    }
    expect(body).not.toContain(pending.toLowerCase());
    expect(body).not.toContain('sealed');
  });
  it('checks no more than the free five of twenty wrong codes sent at once over four mfaTokens', async () => {
    const member = await memberWithTwoStep('review-parallel-guesses');
    const tokens = await Promise.all(
      [1, 2, 3, 4].map(() => passwordStep(server.app, member.email, PASSWORD)),
    );
    const wrong = wrongCodeFor(member.secret);
    const answers = await Promise.all(
      tokens.flatMap((mfaToken) =>
        [1, 2, 3, 4, 5].map(() => verifySignIn(server.app, { mfaToken, code: wrong })),
      ),
    );
    const checked = answers.filter(
      (answer) =>
        answer.statusCode === 401 &&
        answer.json<{ message: string }>().message === twoStepMessages.wrongCode,
    );
    expect(checked.length).toBeLessThanOrEqual(5);
    expect(answers.every((answer) => [401, 429, 503].includes(answer.statusCode))).toBe(true);
  });
});
