// The ways someone who once held a member's password (or a session of his) could take or keep
// the account after the owner acted: each test is an attack that used to work.
import type { CapturedEmail } from '@kegel/sandbox/smtp-inbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  askForEmailChange,
  changeEmailThroughLink,
  confirmEmailChange,
  getProfile,
  login,
  post,
  registerAndLogin,
  resetPasswordThroughLink,
  undoCodeMailedTo,
  undoEmailChange,
} from '../support/accounts';
import {
  linkIn,
  startTestServer,
  TEST_PUBLIC_URL,
  type TestServer,
  uniqueEmail,
} from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

describe.each(testDatabaseKinds)('account takeover paths on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const mailTo = (email: string, subject: string): Promise<CapturedEmail> =>
    server.inbox.waitFor(
      (message) => message.to.includes(email) && message.subject.includes(subject),
    );

  describe('a pending email change', () => {
    it('dies when the owner resets the password', async () => {
      const owner = uniqueEmail('owner-reset');
      const attacker = uniqueEmail('attacker-reset');
      const stolen = await registerAndLogin(server.app, owner, 'correct horse');
      const change = await askForEmailChange(server, stolen.accessToken, {
        newEmail: attacker,
        password: 'correct horse',
      });

      await resetPasswordThroughLink(server, owner, 'owner took it back');

      const response = await confirmEmailChange(server, change);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        message: 'This link is invalid or has expired. Please, try again.',
      });
      await login(server.app, owner, 'owner took it back');
    });

    it('dies when the owner changes the password', async () => {
      const owner = uniqueEmail('owner-change');
      const attacker = uniqueEmail('attacker-change');
      const stolen = await registerAndLogin(server.app, owner, 'correct horse');
      const change = await askForEmailChange(server, stolen.accessToken, {
        newEmail: attacker,
        password: 'correct horse',
      });

      const mine = await login(server.app, owner, 'correct horse');
      const changed = await post(
        server.app,
        '/auth/change-password',
        { oldPassword: 'correct horse', newPassword: 'owner took it back' },
        mine.accessToken,
      );
      expect(changed.statusCode).toBe(200);

      expect((await confirmEmailChange(server, change)).statusCode).toBe(400);
    });

    it('can be cancelled from the notice to the old address, which ends every session', async () => {
      const owner = uniqueEmail('owner-cancel');
      const attacker = uniqueEmail('attacker-cancel');
      const stolen = await registerAndLogin(server.app, owner, 'correct horse');
      const change = await askForEmailChange(server, stolen.accessToken, {
        newEmail: attacker,
        password: 'correct horse',
      });

      const notice = await mailTo(owner, 'email address is being changed');
      const cancelLink = linkIn(notice);
      expect(`${cancelLink.origin}${cancelLink.pathname}`).toBe(
        `${TEST_PUBLIC_URL}/account/cancel-email-change`,
      );
      expect(notice.text).toContain('this was not you');

      const cancelled = await post(server.app, '/auth/change-email/cancel', {
        code: cancelLink.searchParams.get('code'),
      });
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      expect(cancelled.json()).toEqual({
        message:
          'The email change was cancelled and every device was signed out. Choose a new password to sign in again.',
      });

      expect((await confirmEmailChange(server, change)).statusCode).toBe(400);
      expect((await getProfile(server.app, stolen.accessToken)).statusCode).toBe(401);
      expect(
        (await post(server.app, '/auth/refresh', { refreshToken: stolen.refreshToken })).statusCode,
      ).toBe(401);
      // The link works once.
      const again = await post(server.app, '/auth/change-email/cancel', {
        code: cancelLink.searchParams.get('code'),
      });
      expect(again.statusCode).toBe(400);
    });

    it('is undone from the notice even after the attacker confirmed it', async () => {
      const owner = uniqueEmail('owner-undo');
      const attacker = uniqueEmail('attacker-undo');
      const stolen = await registerAndLogin(server.app, owner, 'correct horse');
      const change = await askForEmailChange(server, stolen.accessToken, {
        newEmail: attacker,
        password: 'correct horse',
      });
      expect((await confirmEmailChange(server, change)).statusCode).toBe(200);

      const cancelLink = linkIn(await mailTo(owner, 'email address is being changed'));
      const cancelled = await post(server.app, '/auth/change-email/cancel', {
        code: cancelLink.searchParams.get('code'),
      });
      expect(cancelled.statusCode, cancelled.body).toBe(200);

      expect((await getProfile(server.app, stolen.accessToken)).statusCode).toBe(401);
      // The attacker knows the password: it no longer opens the account...
      const withOldPassword = await post(server.app, '/auth/local/login/email', {
        email: owner,
        password: 'correct horse',
      });
      expect(withOldPassword.statusCode).toBe(401);
      // ...and the owner sets a new one through his own, restored, address.
      await resetPasswordThroughLink(server, owner, 'owner took it back');
      const mine = await login(server.app, owner, 'owner took it back');
      expect((await getProfile(server.app, mine.accessToken)).json()).toMatchObject({
        email: owner,
      });
    });
  });

  describe('"this wasn\'t me" against an attacker who keeps going', () => {
    it("is the last word: an attacker's own later cancel link dies with the owner's", async () => {
      const owner = uniqueEmail('owner-last');
      const attacker = uniqueEmail('attacker-last');
      const stolen = await registerAndLogin(server.app, owner, 'correct horse');
      await changeEmailThroughLink(server, stolen.accessToken, {
        newEmail: attacker,
        password: 'correct horse',
      });
      // The attacker asks for another move and keeps the notice mailed to his own address:
      // a link that would "give back" the account to his address.
      const elsewhere = uniqueEmail('attacker-elsewhere');
      await askForEmailChange(server, stolen.accessToken, {
        newEmail: elsewhere,
        password: 'correct horse',
      });
      const attackersCancel = await undoCodeMailedTo(server, attacker, elsewhere);

      expect(
        (await undoEmailChange(server, await undoCodeMailedTo(server, owner, attacker))).statusCode,
      ).toBe(200);
      await resetPasswordThroughLink(server, owner, 'owner took it back');

      expect((await undoEmailChange(server, attackersCancel)).statusCode).toBe(400);
      const mine = await login(server.app, owner, 'owner took it back');
      expect((await getProfile(server.app, mine.accessToken)).json()).toMatchObject({
        email: owner,
      });
    });

    it('undoes two changes in a row, and tells the address it took the account from', async () => {
      const owner = uniqueEmail('owner-twice');
      const first = uniqueEmail('attacker-first');
      const second = uniqueEmail('attacker-second');
      const stolen = await registerAndLogin(server.app, owner, 'correct horse');
      await changeEmailThroughLink(server, stolen.accessToken, {
        newEmail: first,
        password: 'correct horse',
      });
      await changeEmailThroughLink(server, stolen.accessToken, {
        newEmail: second,
        password: 'correct horse',
      });

      expect(
        (await undoEmailChange(server, await undoCodeMailedTo(server, owner, first))).statusCode,
      ).toBe(200);
      await mailTo(second, 'email change of your Kegel Coach account was undone');
      await resetPasswordThroughLink(server, owner, 'owner took it back');
      const mine = await login(server.app, owner, 'owner took it back');
      expect((await getProfile(server.app, mine.accessToken)).json()).toMatchObject({
        email: owner,
      });
    });

    it('holds the old address: nobody can register it or move to it meanwhile', async () => {
      const owner = uniqueEmail('owner-held');
      const attacker = uniqueEmail('attacker-held');
      const stolen = await registerAndLogin(server.app, owner, 'correct horse');
      await changeEmailThroughLink(server, stolen.accessToken, {
        newEmail: attacker,
        password: 'correct horse',
      });

      const squat = await post(server.app, '/auth/local/register/email', {
        email: owner,
        password: 'squatter password',
      });
      expect(squat.statusCode).toBe(409);
      const other = await registerAndLogin(server.app, uniqueEmail('other-held'), 'correct horse');
      const move = await post(
        server.app,
        '/auth/change-email',
        { newEmail: owner, password: 'correct horse' },
        other.accessToken,
      );
      expect(move.statusCode).toBe(409);

      expect(
        (await undoEmailChange(server, await undoCodeMailedTo(server, owner, attacker))).statusCode,
      ).toBe(200);
      await resetPasswordThroughLink(server, owner, 'owner took it back');
    });

    it('unlinks a Google identity the attacker linked after asking for the change', async () => {
      const owner = uniqueEmail('owner-google');
      const attacker = uniqueEmail('attacker-google').replace(/@example\.com$/, '@gmail.com');
      const stolen = await registerAndLogin(server.app, owner, 'correct horse');
      await changeEmailThroughLink(server, stolen.accessToken, {
        newEmail: attacker,
        password: 'correct horse',
      });
      const sandbox = server.app.identitySandbox!;
      const googleIdentity = {
        sub: `attacker-${Date.now()}`,
        email: attacker,
        emailVerified: true,
      };
      const signInWithGoogle = async () =>
        post(server.app, '/auth/oauth/google/verify-token', {
          code: await sandbox.issueGoogleCode(googleIdentity, {}),
          clientType: 'WEB',
        });
      const linked = await signInWithGoogle();
      expect(linked.statusCode, linked.body).toBe(200);

      expect(
        (await undoEmailChange(server, await undoCodeMailedTo(server, owner, attacker))).statusCode,
      ).toBe(200);

      const again = await signInWithGoogle();
      const profile = await getProfile(
        server.app,
        again.json<{ accessToken: string }>().accessToken,
      );
      expect(profile.json()).not.toMatchObject({ email: owner });
    });
  });

  describe('after an email change', () => {
    it('a reset link mailed to the old address no longer works', async () => {
      const oldEmail = uniqueEmail('moved-old');
      const newEmail = uniqueEmail('moved-new');
      const tokens = await registerAndLogin(server.app, oldEmail, 'correct horse');
      await post(server.app, '/auth/reset-password', { email: oldEmail });
      const oldReset = linkIn(await mailTo(oldEmail, 'Reset your'));

      const change = await askForEmailChange(server, tokens.accessToken, {
        newEmail: newEmail,
        password: 'correct horse',
      });
      expect((await confirmEmailChange(server, change)).statusCode).toBe(200);

      const response = await post(server.app, '/auth/reset-password/confirm', {
        email: oldEmail,
        code: oldReset.searchParams.get('code'),
        newPassword: 'attacker password',
      });
      expect(response.statusCode).toBe(400);
      await login(server.app, newEmail, 'correct horse');
    });

    it('tells of a password change at the current address only', async () => {
      const oldEmail = uniqueEmail('notice-old');
      const newEmail = uniqueEmail('notice-new');
      const tokens = await registerAndLogin(server.app, oldEmail, 'correct horse');
      const change = await askForEmailChange(server, tokens.accessToken, {
        newEmail: newEmail,
        password: 'correct horse',
      });
      expect((await confirmEmailChange(server, change)).statusCode).toBe(200);

      await resetPasswordThroughLink(server, newEmail, 'brand new password');
      await mailTo(newEmail, 'password was changed');
      expect(
        server.inbox
          .messages()
          .some(
            (message) =>
              message.to.includes(oldEmail) && message.subject.includes('password was changed'),
          ),
      ).toBe(false);
    });
  });

  describe('a signed-in session guessing the password', () => {
    it('is stopped on change-password like a sign-in', async () => {
      const email = uniqueEmail('guess-cp');
      const stolen = await registerAndLogin(server.app, email, 'correct horse');
      for (let guess = 0; guess < 5; guess += 1) {
        const wrong = await post(
          server.app,
          '/auth/change-password',
          { oldPassword: `guess number ${guess}`, newPassword: 'attacker password' },
          stolen.accessToken,
        );
        expect(wrong.statusCode).toBe(400);
      }
      const right = await post(
        server.app,
        '/auth/change-password',
        { oldPassword: 'correct horse', newPassword: 'attacker password' },
        stolen.accessToken,
      );
      expect(right.statusCode).toBe(429);
      expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    });

    it('is stopped on change-email, and the guesses count against sign-in too', async () => {
      const email = uniqueEmail('guess-ce');
      const stolen = await registerAndLogin(server.app, email, 'correct horse');
      for (let guess = 0; guess < 5; guess += 1) {
        const wrong = await post(
          server.app,
          '/auth/change-email',
          { newEmail: uniqueEmail('guess-target'), password: `guess number ${guess}` },
          stolen.accessToken,
        );
        expect(wrong.statusCode).toBe(400);
      }
      const right = await post(
        server.app,
        '/auth/change-email',
        { newEmail: uniqueEmail('guess-target'), password: 'correct horse' },
        stolen.accessToken,
      );
      expect(right.statusCode).toBe(429);
      const signIn = await post(server.app, '/auth/local/login/email', {
        email,
        password: 'correct horse',
      });
      expect(signIn.statusCode).toBe(429);
    });
  });

  describe('refresh tokens', () => {
    it('gives the grace of a concurrent refresh only to the direct predecessor', async () => {
      const first = await registerAndLogin(server.app, uniqueEmail('grandparent'), 'correct horse');
      const refresh = (refreshToken: string) => post(server.app, '/auth/refresh', { refreshToken });
      const second = (await refresh(first.refreshToken)).json<{ refreshToken: string }>();
      const third = (await refresh(second.refreshToken)).json<{ refreshToken: string }>();

      // A copy of the first token, replayed within seconds: the session is taken as stolen.
      expect((await refresh(first.refreshToken)).statusCode).toBe(401);
      expect((await refresh(third.refreshToken)).statusCode).toBe(401);
    });
  });
});
