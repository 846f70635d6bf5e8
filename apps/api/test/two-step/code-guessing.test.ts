// Guessing at the six digits of two-step sign-in (ADR 018): whoever knows the password, or holds a
// session, gets no more wrong codes than the failure gates allow, and past the account's failure
// budget no code is checked at all.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { post, registerAndLogin } from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import {
  appCode,
  turnOnTwoStep,
  useMovableClock,
  verifySignIn,
  waitForNextCode,
  wrongCodeFor,
} from '../support/two-step';

const PASSWORD = 'correct horse';

describe.each(testDatabaseKinds)('guessing two-step codes on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  async function passwordStepFrom(email: string, address: string): Promise<string> {
    const signIn = await server.app.inject({
      method: 'POST',
      url: '/api/auth/local/login/email',
      payload: { email, password: PASSWORD },
      remoteAddress: address,
    });
    expect(signIn.statusCode, signIn.body).toBe(200);
    return signIn.json<{ mfaToken: string }>().mfaToken;
  }

  it('with a session and the password, wrong codes on a password change still hit the lockout', async () => {
    useMovableClock();
    const email = uniqueEmail('code-guess-change');
    const tokens = await registerAndLogin(server.app, email, PASSWORD);
    const { secret } = await turnOnTwoStep(server.app, tokens.accessToken);
    waitForNextCode();
    const changeWith = (code: string) =>
      post(
        server.app,
        '/auth/change-password',
        { oldPassword: PASSWORD, newPassword: 'taken over for good', code },
        tokens.accessToken,
      );
    // A right password must not empty the failure gate the wrong code before it filled.
    const wrong = wrongCodeFor(secret);
    const answers: number[] = [];
    for (let guess = 0; guess < 8; guess += 1) answers.push((await changeWith(wrong)).statusCode);
    expect(answers).toContain(429);
    expect((await changeWith(appCode(secret))).statusCode).toBe(429);
  });

  it('wrong codes on an email change hit the same lockout', async () => {
    useMovableClock();
    const email = uniqueEmail('code-guess-email');
    const tokens = await registerAndLogin(server.app, email, PASSWORD);
    const { secret } = await turnOnTwoStep(server.app, tokens.accessToken);
    waitForNextCode();
    const changeWith = (code: string) =>
      post(
        server.app,
        '/auth/change-email',
        { newEmail: uniqueEmail('code-guess-email-new'), password: PASSWORD, code },
        tokens.accessToken,
      );
    const wrong = wrongCodeFor(secret);
    const answers: number[] = [];
    for (let guess = 0; guess < 8; guess += 1) answers.push((await changeWith(wrong)).statusCode);
    expect(answers).toContain(429);
    expect((await changeWith(appCode(secret))).statusCode).toBe(429);
  });

  it("past the account's failure budget, a right code from yet another address opens nothing", async () => {
    useMovableClock();
    const email = uniqueEmail('code-spray');
    const tokens = await registerAndLogin(server.app, email, PASSWORD);
    const { secret } = await turnOnTwoStep(server.app, tokens.accessToken);
    const wrong = wrongCodeFor(secret);
    // Ten addresses (a /48 holds 65,536 /64s), five free wrong codes each: the account's 50.
    for (let network = 1; network <= 10; network += 1) {
      const address = `2001:db8:${network.toString(16)}::1`;
      const mfaToken = await passwordStepFrom(email, address);
      for (let guess = 0; guess < 5; guess += 1) {
        const answer = await verifySignIn(server.app, { mfaToken, code: wrong }, address);
        expect([401, 429]).toContain(answer.statusCode);
      }
    }
    // The password still passes past the budget (ADR 011); the code is not even checked.
    const lastAddress = '2001:db8:ff::1';
    const mfaToken = await passwordStepFrom(email, lastAddress);
    waitForNextCode(); // the code that turned it on took this step's
    const lucky = await verifySignIn(server.app, { mfaToken, code: appCode(secret) }, lastAddress);
    expect(lucky.statusCode, lucky.body).toBe(429);
    expect(Number(lucky.headers['retry-after'])).toBeGreaterThan(0);
  });
});
