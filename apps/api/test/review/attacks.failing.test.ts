// Adversarial review of passkeys, two-step sign-in and the new-device notice: the attacks that
// WORK today. Each test asserts what the product must do; each fails while the hole is open.
import type { TokenPair } from '@kegel/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { changeEmailThroughLink, post, register, registerAndLogin } from '../support/accounts';
import {
  addPasskey,
  createPasskeyAuthenticator,
  registrationOptions,
  signInOptions,
  signInWithPasskey,
} from '../support/passkey-authenticator';
import { linkIn, startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
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
const CHROME_ON_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_ON_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

describe.each(testDatabaseKinds)('review: attacks that must fail, on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  async function signInFrom(
    email: string,
    from: { userAgent: string; address: string },
  ): Promise<TokenPair> {
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/auth/local/login/email',
      headers: { 'user-agent': from.userAgent },
      remoteAddress: from.address,
      payload: { email, password: PASSWORD },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<TokenPair>();
  }

  it("'This wasn't me' puts the intruder out for good: the passkey he added does not sign in", async () => {
    const email = uniqueEmail('review-notme-passkey');
    await register(server.app, email, PASSWORD);
    await signInFrom(email, { userAgent: CHROME_ON_MAC, address: '203.0.113.7' });
    // The intruder signs in with the stolen password from his own device: the owner is told.
    const intruder = await signInFrom(email, {
      userAgent: FIREFOX_ON_WINDOWS,
      address: '198.51.100.4',
    });
    const intrudersKey = createPasskeyAuthenticator();
    const options = await registrationOptions(server.app, intruder.accessToken);
    const added = await post(
      server.app,
      '/auth/passkeys/register/verify',
      { response: intrudersKey.register(options) },
      intruder.accessToken,
    );
    expect(added.statusCode, added.body).toBe(201);

    const notice = await server.inbox.waitFor(
      (mail) =>
        mail.to.includes(email) && mail.subject === 'New sign-in to your Kegel Coach account',
    );
    const code = linkIn(notice).searchParams.get('code') ?? '';
    const reported = await post(server.app, '/auth/sign-ins/not-me', { code });
    expect(reported.statusCode, reported.body).toBe(200);

    // BROKEN today: 200, the intruder is back in with the passkey he planted.
    expect((await signInWithPasskey(server.app, intrudersKey)).statusCode).toBe(401);
  });

  it('with two-step sign-in on, a session cannot add a passkey (a way in with no code) without a code', async () => {
    const email = uniqueEmail('review-add-passkey');
    const tokens = await registerAndLogin(server.app, email, PASSWORD);
    await turnOnTwoStep(server.app, tokens.accessToken);
    // Whoever holds this session (a stolen token, an unlocked laptop) adds his own passkey.
    const thiefsKey = createPasskeyAuthenticator();
    const options = await registrationOptions(server.app, tokens.accessToken);
    const added = await post(
      server.app,
      '/auth/passkeys/register/verify',
      { response: thiefsKey.register(options) },
      tokens.accessToken,
    );
    // BROKEN today: 201, and the passkey then signs in with no code at all.
    expect(added.statusCode, added.body).toBe(400);
    expect((await signInWithPasskey(server.app, thiefsKey)).statusCode).toBe(401);
  });

  it("past the account's failure budget, a right code from yet another address opens nothing", async () => {
    useMovableClock();
    const email = uniqueEmail('review-code-spray');
    const tokens = await registerAndLogin(server.app, email, PASSWORD);
    const { secret } = await turnOnTwoStep(server.app, tokens.accessToken);
    const wrong = wrongCodeFor(secret);
    // Ten addresses (a /48 holds 65,536 /64s), five free wrong codes each: the account's 50.
    for (let network = 1; network <= 10; network += 1) {
      const address = `2001:db8:${network.toString(16)}::1`;
      const signIn = await server.app.inject({
        method: 'POST',
        url: '/api/auth/local/login/email',
        payload: { email, password: PASSWORD },
        remoteAddress: address,
      });
      expect(signIn.statusCode, signIn.body).toBe(200);
      const { mfaToken } = signIn.json<{ mfaToken: string }>();
      for (let guess = 0; guess < 5; guess += 1) {
        const answer = await verifySignIn(server.app, { mfaToken, code: wrong }, address);
        expect([401, 429]).toContain(answer.statusCode);
      }
    }
    const lastAddress = '2001:db8:ff::1';
    const signIn = await server.app.inject({
      method: 'POST',
      url: '/api/auth/local/login/email',
      payload: { email, password: PASSWORD },
      remoteAddress: lastAddress,
    });
    expect(signIn.statusCode, signIn.body).toBe(200);
    const { mfaToken } = signIn.json<{ mfaToken: string }>();
    // The guess that happens to be right: past 50 failures in the hour it must not open a session
    // (BROKEN today: 200, the account budget only turns a wrong answer's 401 into 429, so a
    // spray over many /64s keeps guessing with each guess still checked).
    waitForNextCode(); // the code that turned it on took this step's
    const lucky = await verifySignIn(server.app, { mfaToken, code: appCode(secret) }, lastAddress);
    expect(lucky.statusCode, lucky.body).toBe(429);
  });
  it('tells the owner by email when a session turns two-step sign-in on (else a stolen session locks him out unseen)', async () => {
    useMovableClock();
    const email = uniqueEmail('review-silent-turn-on');
    const tokens = await registerAndLogin(server.app, email, PASSWORD);
    const mailsTo = async () =>
      (
        await server.app.database.db
          .selectFrom('outboxEmails')
          .select('template')
          .where('recipient', '=', email)
          .execute()
      ).map((row) => row.template);
    const before = await mailsTo();
    // Whoever holds the session (no password asked) binds the account to his own phone; the
    // recovery codes are shown to him only. A reset does not turn it off (ADR 018): the owner
    // is out until support steps in.
    await turnOnTwoStep(server.app, tokens.accessToken);
    // BROKEN today: no mail at all, so the owner learns of it only at his next sign-in.
    await expect
      .poll(async () => (await mailsTo()).length, { timeout: 2000 })
      .toBeGreaterThan(before.length);
  });

  it('with two-step sign-in on, deleting the account asks for a current code too', async () => {
    useMovableClock();
    const email = uniqueEmail('review-delete-no-code');
    const tokens = await registerAndLogin(server.app, email, PASSWORD);
    await turnOnTwoStep(server.app, tokens.accessToken);
    // The password and a session (one opened before two-step sign-in was on, or a stolen one)
    // are enough to delete a paid account and its history for good.
    const deleted = await post(
      server.app,
      '/users/delete',
      { password: PASSWORD },
      tokens.accessToken,
    );
    // BROKEN today: 200, the account is gone with no code.
    expect(deleted.statusCode, deleted.body).toBe(400);
  });
  it('an answer naming an unknown passkey uses up its challenge, as one naming a known passkey does', async () => {
    const email = uniqueEmail('review-passkey-oracle');
    const tokens = await registerAndLogin(server.app, email, PASSWORD);
    const ownKey = createPasskeyAuthenticator();
    await addPasskey(server.app, tokens.accessToken, ownKey);
    // A probe: does this credential id belong to some account? Answer one challenge with it...
    const options = await signInOptions(server.app);
    const probe = createPasskeyAuthenticator();
    const probed = await post(server.app, '/auth/passkeys/login/verify', {
      response: probe.signIn(options),
    });
    expect(probed.statusCode).toBe(401);
    // ...then with one's own passkey: had the id been known, the challenge would be gone.
    // BROKEN today: 200, an unknown id leaves the challenge unused (and skips the signature
    // check, a timing difference too), so whether an id is registered can be read.
    const reused = await post(server.app, '/auth/passkeys/login/verify', {
      response: ownKey.signIn(options),
    });
    expect(reused.statusCode, reused.body).toBe(401);
  });
  it('with a session and the password, wrong codes on a password change still hit the lockout', async () => {
    useMovableClock();
    const email = uniqueEmail('review-code-guess-change');
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
    // Each request's right password empties the failure gate the wrong code just filled.
    const wrong = wrongCodeFor(secret);
    const answers: number[] = [];
    for (let guess = 0; guess < 8; guess += 1) answers.push((await changeWith(wrong)).statusCode);
    // BROKEN today: eight 400s, never a 429, and then the right code passes: guessing has no
    // end (only the /auth flood guard's pace), and a found code turns two-step sign-in off or
    // moves the email.
    expect(answers).toContain(429);
    expect((await changeWith(appCode(secret))).statusCode).toBe(429);
  });
  it("'This wasn't me' after the intruder moved the email mails the reset link to the owner, not to him", async () => {
    const email = uniqueEmail('review-notme-moved');
    const intrudersEmail = uniqueEmail('review-notme-intruder');
    await register(server.app, email, PASSWORD);
    await signInFrom(email, { userAgent: CHROME_ON_MAC, address: '203.0.113.7' });
    const intruder = await signInFrom(email, {
      userAgent: FIREFOX_ON_WINDOWS,
      address: '198.51.100.5',
    });
    await changeEmailThroughLink(server, intruder.accessToken, {
      newEmail: intrudersEmail,
      password: PASSWORD,
    });
    const notice = await server.inbox.waitFor(
      (mail) =>
        mail.to.includes(email) && mail.subject === 'New sign-in to your Kegel Coach account',
    );
    const reported = await post(server.app, '/auth/sign-ins/not-me', {
      code: linkIn(notice).searchParams.get('code'),
    });
    expect(reported.statusCode, reported.body).toBe(200);
    const resetMail = await server.inbox.waitFor(
      (mail) =>
        (mail.to.includes(email) || mail.to.includes(intrudersEmail)) &&
        mail.subject.includes('Choose a new password'),
    );
    // BROKEN today: the reset link goes to the account's address now, the intruder's, who
    // sets a password and is back in (only the separate email-change undo saves the owner).
    expect(resetMail.to).not.toContain(intrudersEmail);
  });
});
