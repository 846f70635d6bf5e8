// Adversarial review of the support desk's door (ADR 020): every way around the guard of /ops
// (other spellings of its paths, other methods, sessions that ended or changed since they were
// opened) and the step-up that opens it (guessing, replaying and lending codes, passkeys that
// never checked their owner). Each test fails if its attack works.
import { type OperatorStatus, supportDeskMessages } from '@kegel/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { login, post, registerAndLogin } from '../support/accounts';
import { deskCall, makeMember, type TestMember } from '../support/desk-actions';
import { callApi, makeOperator, OPERATOR_PASSWORD, operatorCommand } from '../support/operators';
import {
  addPasskey,
  createPasskeyAuthenticator,
  signInWithPasskey,
} from '../support/passkey-authenticator';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import {
  appCode,
  confirmTwoStep,
  setUpTwoStep,
  turnOnTwoStep,
  useMovableClock,
  waitForNextCode,
  wrongCodeFor,
} from '../support/two-step';

type Method = 'GET' | 'HEAD' | 'OPTIONS' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

describe.each(testDatabaseKinds)('review: the support desk door under attack on $name', (kind) => {
  let server: TestServer;
  let target: TestMember;
  beforeAll(async () => {
    server = await startTestServer(kind);
    target = await makeMember(server.app, 'door-target');
  });
  afterAll(() => server.close());
  beforeEach(() => useMovableClock());
  afterEach(() => vi.useRealTimers());

  function request(method: Method, url: string, accessToken?: string, payload?: unknown) {
    return server.app.inject({
      method,
      url,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      headers: accessToken ? { authorization: `Bearer ${accessToken}` } : {},
    });
  }

  /** /ops reached by other spellings and methods: what a router, a proxy or a client may send. */
  function disguisedCalls(): Array<[Method, string]> {
    const id = target.userId;
    const term = encodeURIComponent(target.email.slice(0, 12));
    return [
      ['GET', `/api/ops/members?query=${term}`],
      ['GET', `/api/ops/members/?query=${term}`],
      ['GET', `/api/OPS/members?query=${term}`],
      ['GET', `/api/Ops/Members?query=${term}`],
      ['GET', `/api/ops/%6Dembers?query=${term}`],
      ['GET', `/api/%6Fps/members?query=${term}`],
      ['GET', `/api//ops/members?query=${term}`],
      ['GET', `/api/ops//members?query=${term}`],
      ['GET', `/api/ops/members;x=1?query=${term}`],
      ['GET', `/api/./ops/members?query=${term}`],
      ['GET', `/api/users/../ops/members?query=${term}`],
      ['GET', `/api/ops/members/${id}/`],
      ['GET', `/api/ops/members/${id.toUpperCase()}`],
      ['GET', `/api/ops/members/${id}/timeline/`],
      ['GET', `/api/ops/members/${id}/view`],
      ['GET', '/api/ops/audit/'],
      ['HEAD', `/api/ops/members?query=${term}`],
      ['HEAD', `/api/ops/members/${id}`],
      ['HEAD', '/api/ops/audit'],
      ['OPTIONS', `/api/ops/members/${id}`],
      ['PUT', `/api/ops/members/${id}`],
      ['PATCH', `/api/ops/members/${id}`],
      ['DELETE', `/api/ops/members/${id}`],
      ['POST', `/api/ops/members/${id}`],
      ['POST', `/api/ops/members/${id}/grants/`],
      ['POST', `/api/OPS/members/${id}/grants`],
    ];
  }

  async function auditRowCount(): Promise<number> {
    const { count } = await server.app.database.db
      .selectFrom('auditEvents')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(count);
  }

  /**
   * Each disguised call refused (`allowed` statuses) with nothing of the member in its answer. A
   * 400 is allowed too: the contract's schemas are checked before the session (Fastify's order),
   * e.g. `/ops/members/` is `/ops/members/:id` with an empty id. It tells nothing of a member.
   */
  async function expectNoWayIn(accessToken: string | undefined, allowed: number[]) {
    const before = await auditRowCount();
    for (const [method, url] of disguisedCalls()) {
      const body =
        method === 'POST' || method === 'PUT' || method === 'PATCH'
          ? { days: 1, reason: 'door test', idempotencyKey: 'door-test-key' }
          : undefined;
      const response = await request(method, url, accessToken, body);
      expect(allowed, `${method} ${url}: ${response.statusCode} ${response.body}`).toContain(
        response.statusCode,
      );
      expect(response.body, `${method} ${url}`).not.toContain(target.email);
      expect(response.body, `${method} ${url}`).not.toContain('"subscriptionEndDate"');
    }
    expect(await auditRowCount()).toBe(before);
    expect(
      (await callApi(server.app, 'GET', '/users/subscriptions/personal', target.accessToken)).json<{
        data: unknown[];
      }>().data,
    ).toEqual([]);
  }

  it('lets no visitor in by another spelling of an /ops path, another method, HEAD or OPTIONS', async () => {
    await expectNoWayIn(undefined, [400, 401, 404, 405]);
  });

  it('lets no member in by another spelling of an /ops path, another method, HEAD or OPTIONS', async () => {
    const member = await makeMember(server.app, 'door-member');
    await expectNoWayIn(member.accessToken, [400, 403, 404, 405]);
  });

  it('lets an operator without a proved second factor in by no spelling either', async () => {
    const email = uniqueEmail('door-unproved');
    const { accessToken } = await registerAndLogin(server.app, email, OPERATOR_PASSWORD);
    await turnOnTwoStep(server.app, accessToken);
    await operatorCommand(server.app, ['grant', email, '--role', 'admin']);
    await expectNoWayIn(accessToken, [400, 403, 404, 405]);
  });

  const search = (operator: { accessToken: string }) =>
    callApi(server.app, 'GET', `/ops/members?query=${target.userId}`, operator.accessToken);

  async function status(accessToken: string): Promise<OperatorStatus> {
    const response = await callApi(server.app, 'GET', '/users/operator', accessToken);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<OperatorStatus>();
  }

  it('closes the desk at once when the role is revoked, or turned from admin to support', async () => {
    const operator = await makeOperator(server.app, 'admin', 'door-revoked');
    expect((await search(operator)).statusCode).toBe(200);
    await operatorCommand(server.app, ['grant', operator.email, '--role', 'support']);
    const grant = await callApi(
      server.app,
      'POST',
      `/ops/members/${target.userId}/grants`,
      operator.accessToken,
      { days: 40, reason: 'demoted operator', idempotencyKey: 'door-demoted-key' },
    );
    expect(grant.statusCode, grant.body).toBe(403);
    await operatorCommand(server.app, ['revoke', operator.email]);
    const revoked = await search(operator);
    expect(revoked.statusCode).toBe(403);
    expect(revoked.json<{ message: string }>().message).toBe(supportDeskMessages.notAnOperator);
    // Renewing the tokens does not bring the role back.
    const renewed = await post(server.app, '/auth/refresh', {
      refreshToken: operator.refreshToken,
    });
    expect(renewed.statusCode, renewed.body).toBe(200);
    expect((await search(renewed.json<{ accessToken: string }>())).statusCode).toBe(403);
  });

  it('closes the desk at once when two-step sign-in is turned off after the session proved it', async () => {
    const operator = await makeOperator(server.app, 'support', 'door-two-step-off');
    expect((await search(operator)).statusCode).toBe(200);
    waitForNextCode();
    const off = await post(
      server.app,
      '/auth/mfa/totp/disable',
      { code: appCode(operator.secret) },
      operator.accessToken,
    );
    expect(off.statusCode, off.body).toBe(200);
    const closed = await search(operator);
    expect(closed.statusCode).toBe(403);
    expect(closed.json<{ message: string }>().message).toBe(supportDeskMessages.noSecondFactor);
  });

  it('refuses the access token of an ended session: signed out, or signed out everywhere by an admin', async () => {
    const signedOut = await makeOperator(server.app, 'support', 'door-logout');
    expect((await search(signedOut)).statusCode).toBe(200);
    const logout = await post(server.app, '/auth/logout', {
      refreshToken: signedOut.refreshToken,
    });
    expect(logout.statusCode, logout.body).toBe(200);
    expect((await search(signedOut)).statusCode).toBe(401);

    const admin = await makeOperator(server.app, 'admin', 'door-ender');
    const victim = await makeOperator(server.app, 'support', 'door-ended');
    expect((await search(victim)).statusCode).toBe(200);
    const ended = await deskCall(
      server.app,
      'POST',
      `/ops/members/${victim.userId}/sessions/revoke`,
      admin.accessToken,
      { reason: 'lost laptop' },
    );
    expect(ended.statusCode, ended.body).toBe(200);
    expect((await search(victim)).statusCode).toBe(401);
    const stepUp = await callApi(server.app, 'POST', '/auth/mfa/step-up', victim.accessToken, {
      code: appCode(victim.secret, Date.now() + 30_000),
    });
    expect(stepUp.statusCode).toBe(401);
  });

  /** An operator with two-step sign-in on and a second session that never proved it. */
  async function operatorWithUnprovedSession(label: string) {
    const email = uniqueEmail(label);
    const first = await registerAndLogin(server.app, email, OPERATOR_PASSWORD);
    const { secret, recoveryCodes } = await turnOnTwoStep(server.app, first.accessToken);
    await operatorCommand(server.app, ['grant', email, '--role', 'admin']);
    // The session from before two-step sign-in was on: it never proved the second factor.
    return { email, secret, recoveryCodes, accessToken: first.accessToken };
  }

  const stepUp = (accessToken: string, code: string, remoteAddress = '127.0.0.1') =>
    server.app.inject({
      method: 'POST',
      url: '/api/auth/mfa/step-up',
      payload: { code },
      remoteAddress,
      headers: { authorization: `Bearer ${accessToken}` },
    });

  it('limits wrong step-up codes from the operator’s own network as sign-in codes are: after 20 wrong ones, the right code is refused', async () => {
    const operator = await operatorWithUnprovedSession('door-brute-known');
    waitForNextCode();
    const wrong = wrongCodeFor(operator.secret);
    const answers: number[] = [];
    for (let guess = 0; guess < 20; guess += 1) {
      answers.push((await stepUp(operator.accessToken, wrong)).statusCode);
    }
    expect(answers.every((code) => code === 400 || code === 429)).toBe(true);
    const right = await stepUp(operator.accessToken, appCode(operator.secret));
    expect(right.statusCode, `after 20 wrong codes: ${right.body}`).not.toBe(200);
    expect((await status(operator.accessToken)).deskOpenUntil).toBeNull();
  });

  it('limits wrong step-up codes from a stranger’s address: the sixth is refused, right or not', async () => {
    const operator = await operatorWithUnprovedSession('door-brute-stranger');
    waitForNextCode();
    const wrong = wrongCodeFor(operator.secret);
    for (let guess = 0; guess < 5; guess += 1) {
      expect((await stepUp(operator.accessToken, wrong, '203.0.113.50')).statusCode).toBe(400);
    }
    const right = await stepUp(operator.accessToken, appCode(operator.secret), '203.0.113.50');
    expect(right.statusCode, right.body).toBe(429);
    expect((await status(operator.accessToken)).deskOpenUntil).toBeNull();
  });

  it("refuses a step-up code already used, another operator's code, and a recovery code used once", async () => {
    const operator = await operatorWithUnprovedSession('door-replay');
    const other = await operatorWithUnprovedSession('door-lender');
    waitForNextCode();
    // The code of this 30 seconds proves the session once; again, it is refused.
    const code = appCode(operator.secret);
    expect((await stepUp(operator.accessToken, code)).statusCode).toBe(200);
    const replayed = await stepUp(operator.accessToken, code);
    expect(replayed.statusCode).toBe(400);
    // Another operator's code (his own, valid now) does not prove this operator's session.
    expect((await stepUp(other.accessToken, appCode(operator.secret))).statusCode).toBe(400);
    expect((await status(other.accessToken)).deskOpenUntil).toBeNull();
    // A recovery code proves once.
    const recoveryCode = other.recoveryCodes[0]!;
    expect((await stepUp(other.accessToken, recoveryCode)).statusCode).toBe(200);
    const stranger = await operatorWithUnprovedSession('door-recovery-again');
    expect((await stepUp(stranger.accessToken, recoveryCode)).statusCode).toBe(400);
    expect((await stepUp(other.accessToken, recoveryCode)).statusCode).toBe(400);
  });

  it('does not count a passkey sign-in without user verification (a key only touched) as the second factor', async () => {
    const email = uniqueEmail('door-touch-only');
    const { accessToken } = await registerAndLogin(server.app, email, OPERATOR_PASSWORD);
    await operatorCommand(server.app, ['grant', email, '--role', 'admin']);
    const touchOnly = createPasskeyAuthenticator({ userVerified: false });
    await addPasskey(server.app, accessToken, touchOnly);
    const signedIn = await signInWithPasskey(server.app, touchOnly);
    // Signing in with it is fine for the product; opening the desk is not: it proved possession only.
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    const token = signedIn.json<{ accessToken: string }>().accessToken;
    expect((await status(token)).deskOpenUntil).toBeNull();
    expect((await search({ accessToken: token })).statusCode).toBe(403);
  });

  it("does not open the desk to someone with only a passkey operator's password, by enrolling his own authenticator app", async () => {
    const email = uniqueEmail('door-passkey-enrol');
    const first = await registerAndLogin(server.app, email, OPERATOR_PASSWORD);
    await operatorCommand(server.app, ['grant', email, '--role', 'admin']);
    // Later than the grant (a test clock's tick could make both the same instant).
    waitForNextCode();
    // The operator proves the desk's factor with a passkey (two-step sign-in is off).
    await addPasskey(server.app, first.accessToken, createPasskeyAuthenticator());
    // A phished password alone signs in (no second step without two-step sign-in)...
    const stolen = await login(server.app, email, OPERATOR_PASSWORD);
    expect((await status(stolen.accessToken)).deskOpenUntil).toBeNull();
    // ...and that session turns on two-step sign-in with the thief's own app, then steps up.
    const { secret } = await setUpTwoStep(server.app, stolen.accessToken);
    // Refusing the enrolment or keeping the desk closed after it both defeat him: the desk's
    // answer is what counts.
    await confirmTwoStep(server.app, stolen.accessToken, appCode(secret));
    waitForNextCode();
    await stepUp(stolen.accessToken, appCode(secret));
    expect((await status(stolen.accessToken)).deskOpenUntil).toBeNull();
    expect((await search(stolen)).statusCode).toBe(403);
  });

  it("does not open the desk to someone with only a passkey operator's password, by adding his own passkey", async () => {
    const email = uniqueEmail('door-passkey-add');
    const first = await registerAndLogin(server.app, email, OPERATOR_PASSWORD);
    await operatorCommand(server.app, ['grant', email, '--role', 'admin']);
    // Later than the grant (a test clock's tick could make both the same instant).
    waitForNextCode();
    await addPasskey(server.app, first.accessToken, createPasskeyAuthenticator());
    const stolen = await login(server.app, email, OPERATOR_PASSWORD);
    // The thief's passkey, added from the password session, then used to sign in.
    const thiefsKey = createPasskeyAuthenticator();
    const options = await post(
      server.app,
      '/auth/passkeys/register/options',
      {},
      stolen.accessToken,
    );
    if (options.statusCode === 200) {
      const added = await post(
        server.app,
        '/auth/passkeys/register/verify',
        { response: thiefsKey.register(options.json()) },
        stolen.accessToken,
      );
      if (added.statusCode === 201) {
        const signedIn = await signInWithPasskey(server.app, thiefsKey);
        expect(signedIn.statusCode, signedIn.body).toBe(200);
        const token = signedIn.json<{ accessToken: string }>().accessToken;
        expect((await status(token)).deskOpenUntil).toBeNull();
        expect((await search({ accessToken: token })).statusCode).toBe(403);
      }
    }
  });

  it('does not open the desk to someone with only the password of an operator without a second factor, by enrolling his own authenticator app', async () => {
    const email = uniqueEmail('door-enrol');
    const stolen = await registerAndLogin(server.app, email, OPERATOR_PASSWORD);
    await operatorCommand(server.app, ['grant', email, '--role', 'admin']);
    // Later than the grant (a test clock's tick could make both the same instant).
    waitForNextCode();
    // The thief signed in with the password (no second step: the operator has no factor yet) and
    // holds his own authenticator app.
    const { secret } = await setUpTwoStep(server.app, stolen.accessToken);
    const confirmed = await confirmTwoStep(server.app, stolen.accessToken, appCode(secret));
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    waitForNextCode();
    await stepUp(stolen.accessToken, appCode(secret));
    expect((await status(stolen.accessToken)).deskOpenUntil).toBeNull();
    expect((await search(stolen)).statusCode).toBe(403);
  });

  it("keeps a thief's newly enrolled factor from opening the desk when the role is granted again (a promotion, or the same role re-run)", async () => {
    const email = uniqueEmail('door-regrant');
    const stolen = await registerAndLogin(server.app, email, OPERATOR_PASSWORD);
    await operatorCommand(server.app, ['grant', email, '--role', 'support']);
    waitForNextCode();
    // The thief, with the password alone, enrols his app: the desk stays closed for now.
    const { secret } = await setUpTwoStep(server.app, stolen.accessToken);
    expect((await confirmTwoStep(server.app, stolen.accessToken, appCode(secret))).statusCode).toBe(
      200,
    );
    waitForNextCode();
    await stepUp(stolen.accessToken, appCode(secret));
    expect((await search(stolen)).statusCode).toBe(403);
    // Minutes later the operator is promoted on the server (or the grant is run again): the
    // thief's factor is no older than it was, and must not open the desk now.
    vi.setSystemTime(Date.now() + 10 * 60_000);
    expect((await operatorCommand(server.app, ['grant', email, '--role', 'admin'])).code).toBe(0);
    waitForNextCode();
    await stepUp(stolen.accessToken, appCode(secret));
    expect((await status(stolen.accessToken)).deskOpenUntil).toBeNull();
    expect((await search(stolen)).statusCode).toBe(403);
  });
});
