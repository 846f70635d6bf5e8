import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { login, post, register, registerAndLogin } from '../support/accounts';
import { linkIn, startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const TOO_COMMON = {
  statusCode: 400,
  error: 'Bad Request',
  message: 'This password is too common. Please choose a less guessable one.',
};

/**
 * Among the most used passwords, as typed: case and Unicode compatibility forms (full-width
 * letters) do not make one less common; nor do a repeated character, a repeated short block or
 * a straight run, which the list leaves to pattern matching.
 */
const COMMON_PASSWORDS = [
  'password',
  '12345678',
  'qwertyuiop',
  'Password1',
  'PASSWORD',
  'ｐａｓｓｗｏｒｄ',
  'aaaaaaaa',
  '12341234',
  'abcdefgh',
  '87654321',
];

describe.each(testDatabaseKinds)('common passwords on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  it.each(COMMON_PASSWORDS)('registration refuses "%s", and makes no account', async (password) => {
    const email = uniqueEmail('common-register');
    const response = await post(server.app, '/auth/local/register/email', { email, password });
    expect(response.json()).toEqual(TOO_COMMON);
    // The address is still free.
    await register(server.app, email, 'correct horse');
  });

  it('registration takes a password that is not common', async () => {
    const email = uniqueEmail('common-register-ok');
    await register(server.app, email, 'violet anchor drizzle');
    await login(server.app, email, 'violet anchor drizzle');
  });

  it('a reset link refuses a common new password and stays usable for a good one', async () => {
    const email = uniqueEmail('common-reset');
    await register(server.app, email, 'correct horse');
    await post(server.app, '/auth/reset-password', { email });
    const message = await server.inbox.waitFor(
      (mail) => mail.to.includes(email) && mail.subject.includes('Reset'),
    );
    const code = linkIn(message).searchParams.get('code') ?? '';

    for (const newPassword of COMMON_PASSWORDS) {
      const refused = await post(server.app, '/auth/reset-password/confirm', {
        email,
        code,
        newPassword,
      });
      expect(refused.json(), newPassword).toEqual(TOO_COMMON);
    }
    await login(server.app, email, 'correct horse');

    const accepted = await post(server.app, '/auth/reset-password/confirm', {
      email,
      code,
      newPassword: 'violet anchor drizzle',
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    await login(server.app, email, 'violet anchor drizzle');
  });

  it('a password change refuses a common new password and takes a good one', async () => {
    const email = uniqueEmail('common-change');
    const tokens = await registerAndLogin(server.app, email, 'correct horse');

    for (const newPassword of COMMON_PASSWORDS) {
      const refused = await post(
        server.app,
        '/auth/change-password',
        { oldPassword: 'correct horse', newPassword },
        tokens.accessToken,
      );
      expect(refused.json(), newPassword).toEqual(TOO_COMMON);
    }
    await login(server.app, email, 'correct horse');

    const accepted = await post(
      server.app,
      '/auth/change-password',
      { oldPassword: 'correct horse', newPassword: 'violet anchor drizzle' },
      tokens.accessToken,
    );
    expect(accepted.statusCode, accepted.body).toBe(200);
    await login(server.app, email, 'violet anchor drizzle');
  });
});
