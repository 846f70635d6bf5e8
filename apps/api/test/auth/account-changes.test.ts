import type { TokenPair } from '@kegel/contract';
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

describe.each(testDatabaseKinds)('changing password and email on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  describe('change password', () => {
    it('needs the current password', async () => {
      const tokens = await registerAndLogin(server.app, uniqueEmail('cp-wrong'), 'correct horse');
      const response = await post(
        server.app,
        '/auth/change-password',
        { oldPassword: 'wrong horse', newPassword: 'new password' },
        tokens.accessToken,
      );
      expect(response.json()).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message: 'Current password is incorrect',
      });
    });

    it('needs a signed-in caller', async () => {
      const response = await post(server.app, '/auth/change-password', {
        oldPassword: 'correct horse',
        newPassword: 'new password',
      });
      expect(response.statusCode).toBe(401);
    });

    it('changes it, keeps this session, ends the others and tells the owner', async () => {
      const email = uniqueEmail('cp');
      const here = await registerAndLogin(server.app, email, 'correct horse');
      const elsewhere = await login(server.app, email, 'correct horse');

      const response = await post(
        server.app,
        '/auth/change-password',
        { oldPassword: 'correct horse', newPassword: 'new password' },
        here.accessToken,
      );
      expect(response.json()).toEqual({ message: 'Password changed successfully' });
      expect((await getProfile(server.app, here.accessToken)).statusCode).toBe(200);
      expect(
        (await post(server.app, '/auth/refresh', { refreshToken: here.refreshToken })).statusCode,
      ).toBe(200);
      expect((await getProfile(server.app, elsewhere.accessToken)).statusCode).toBe(401);
      expect(
        (await post(server.app, '/auth/refresh', { refreshToken: elsewhere.refreshToken }))
          .statusCode,
      ).toBe(401);
      await login(server.app, email, 'new password');
      const notice = await server.inbox.waitFor((message) => message.to.includes(email));
      expect(notice.subject).toBe('Your Kegel Coach password was changed');
    });

    it('leaves the password as it was when the new one is invalid', async () => {
      const email = uniqueEmail('cp-invalid');
      const tokens = await registerAndLogin(server.app, email, 'correct horse');
      const response = await post(
        server.app,
        '/auth/change-password',
        { oldPassword: 'correct horse', newPassword: 'short' },
        tokens.accessToken,
      );
      expect(response.json()).toMatchObject({
        statusCode: 400,
        message: ['Password is too short'],
      });
      await login(server.app, email, 'correct horse');
    });
  });

  describe('change email', () => {
    async function requestChange(tokens: TokenPair, newEmail: string, password = 'correct horse') {
      return post(server.app, '/auth/change-email', { newEmail, password }, tokens.accessToken);
    }
    const confirmationTo = (email: string) =>
      server.inbox.waitFor(
        (message) => message.to.includes(email) && message.subject.startsWith('Confirm'),
      );

    it('mails the new address (with a plus) a link, tells the old one, and changes on the link', async () => {
      const oldEmail = uniqueEmail('ce-old');
      const newEmail = uniqueEmail('ce-new').replace('@', '+kegel@');
      const tokens = await registerAndLogin(server.app, oldEmail, 'correct horse');

      const response = await requestChange(tokens, newEmail);
      expect(response.json()).toEqual({ message: 'Confirmation email sent successfully' });
      const notice = await server.inbox.waitFor((message) => message.to.includes(oldEmail));
      expect(notice.text).toContain(newEmail);
      // Nothing changes before the link is followed.
      expect((await getProfile(server.app, tokens.accessToken)).json()).toMatchObject({
        email: oldEmail,
      });

      const link = linkIn(await confirmationTo(newEmail));
      expect(`${link.origin}${link.pathname}`).toBe(`${TEST_PUBLIC_URL}/account/verify-email`);
      expect(link.searchParams.get('newEmail')).toBe(newEmail);
      const verified = await post(server.app, '/auth/change-email/verify', {
        code: link.searchParams.get('code'),
        newEmail: link.searchParams.get('newEmail'),
      });
      expect(verified.json()).toEqual({ message: 'Email successfully changed' });
      expect((await getProfile(server.app, tokens.accessToken)).json()).toMatchObject({
        email: newEmail,
      });
      await login(server.app, newEmail, 'correct horse');
      expect(
        (
          await post(server.app, '/auth/local/login/email', {
            email: oldEmail,
            password: 'correct horse',
          })
        ).statusCode,
      ).toBe(401);
    });

    it('uses a code once, only with the address it was issued for', async () => {
      const tokens = await registerAndLogin(server.app, uniqueEmail('ce-once'), 'correct horse');
      const newEmail = uniqueEmail('ce-once-new');
      await requestChange(tokens, newEmail);
      const code = linkIn(await confirmationTo(newEmail)).searchParams.get('code');
      const verify = (email: string) =>
        post(server.app, '/auth/change-email/verify', { code, newEmail: email });

      expect((await verify(uniqueEmail('ce-other'))).statusCode).toBe(400);
      const [a, b] = await Promise.all([verify(newEmail), verify(newEmail)]);
      expect([a.statusCode, b.statusCode].sort()).toEqual([200, 400]);
      expect((await verify(newEmail)).json()).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message: 'This link is invalid or has expired. Please, try again.',
      });
    });

    it('refuses a wrong password and an address that is already taken, changing nothing', async () => {
      const taken = uniqueEmail('ce-taken');
      await register(server.app, taken, 'correct horse');
      const tokens = await registerAndLogin(server.app, uniqueEmail('ce-refused'), 'correct horse');
      expect((await requestChange(tokens, uniqueEmail(), 'wrong horse')).json()).toMatchObject({
        statusCode: 400,
        message: 'Current password is incorrect',
      });
      expect((await requestChange(tokens, taken.toUpperCase())).json()).toMatchObject({
        statusCode: 409,
        message: 'This email is already in use by another account',
      });
    });

    it('refuses the change at the link when the address was taken in the meantime', async () => {
      const tokens = await registerAndLogin(server.app, uniqueEmail('ce-late'), 'correct horse');
      const newEmail = uniqueEmail('ce-late-new');
      await requestChange(tokens, newEmail);
      const code = linkIn(await confirmationTo(newEmail)).searchParams.get('code');
      await register(server.app, newEmail, 'someone else');
      const response = await post(server.app, '/auth/change-email/verify', { code, newEmail });
      expect(response.statusCode).toBe(409);
    });
  });
});
