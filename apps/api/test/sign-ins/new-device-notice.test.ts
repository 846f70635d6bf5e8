// The notice of a sign-in from a new device or network (ADR 019): the first sign-in after
// registering and sign-ins from a device and network seen in the last 30 days mail nothing; any
// other mails one notice, whose "This wasn't me" link ends every session, clears the password
// and mails a reset link, once, and only when the page's button is clicked.
import type { TokenPair } from '@kegel/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { changeEmailThroughLink, getProfile, post, register } from '../support/accounts';
import {
  addPasskey,
  createPasskeyAuthenticator,
  signInWithPasskey,
} from '../support/passkey-authenticator';
import { linkIn, startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const CHROME_ON_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_ON_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const PASSWORD = 'correct horse';
const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(testDatabaseKinds)('the new-device notice on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const db = () => server.app.database.db;

  async function signIn(
    email: string,
    from: { userAgent: string; address: string },
    password = PASSWORD,
  ): Promise<TokenPair> {
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/auth/local/login/email',
      headers: { 'user-agent': from.userAgent },
      remoteAddress: from.address,
      payload: { email, password },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<TokenPair>();
  }

  /** The notices written for an account (the outbox row is written with the sign-in). */
  async function noticesFor(email: string) {
    return db()
      .selectFrom('outboxEmails')
      .select(['id'])
      .where('recipient', '=', email)
      .where('template', '=', 'new-sign-in')
      .execute();
  }

  const noticeMailedTo = (email: string) =>
    server.inbox.waitFor(
      (mail) =>
        mail.to.includes(email) && mail.subject === 'New sign-in to your Kegel Coach account',
    );

  const home = { userAgent: CHROME_ON_MAC, address: '203.0.113.7' };

  it('mails nothing for the first sign-in after registering, nor from the same device and network', async () => {
    const email = uniqueEmail('familiar');
    await register(server.app, email, PASSWORD);
    await signIn(email, home);
    // A new lease in the same /24 is the same network.
    await signIn(email, { ...home, address: '203.0.113.99' });
    expect(await noticesFor(email)).toHaveLength(0);
  });

  it('mails one notice with the facts for a new browser on a known network', async () => {
    const email = uniqueEmail('new-browser');
    await register(server.app, email, PASSWORD);
    await signIn(email, home);
    await signIn(email, { userAgent: FIREFOX_ON_WINDOWS, address: '203.0.113.7' });
    expect(await noticesFor(email)).toHaveLength(1);
    const notice = await noticeMailedTo(email);
    expect(notice.text).toContain('Device: Firefox on Windows');
    expect(notice.text).toContain('Address: 203.0.113.7');
    expect(notice.text).toContain('How: with email and password');
    expect(notice.text).toMatch(/When: \w+ \d+, \d{4} at .* \(UTC\)/);
    expect(linkIn(notice).pathname).toBe('/account/sign-in-not-me');
    expect(notice.html).toContain('This wasn&#39;t me');
    // The same new device again, within 30 days: no second notice.
    await signIn(email, { userAgent: FIREFOX_ON_WINDOWS, address: '203.0.113.7' });
    expect(await noticesFor(email)).toHaveLength(1);
  });

  it('mails one notice for the same browser on a new network, IPv6 networks compared by /48', async () => {
    const email = uniqueEmail('new-network');
    await register(server.app, email, PASSWORD);
    await signIn(email, { ...home, address: '2001:db8:1:2::10' });
    await signIn(email, { ...home, address: '2001:db8:1:77::10' });
    expect(await noticesFor(email)).toHaveLength(0);
    await signIn(email, { ...home, address: '198.51.100.4' });
    expect(await noticesFor(email)).toHaveLength(1);
    const notice = await noticeMailedTo(email);
    expect(notice.text).toContain('Address: 198.51.100.4');
    expect(notice.text).toContain('Device: Chrome on macOS');
  });

  it('mails again once the device and network have not signed in for 30 days', async () => {
    const email = uniqueEmail('forgotten');
    await register(server.app, email, PASSWORD);
    await signIn(email, home);
    await db()
      .updateTable('signInEvents')
      .set({ createdAt: new Date(Date.now() - 31 * DAY_MS) })
      .where('userId', 'in', db().selectFrom('users').select('id').where('email', '=', email))
      .execute();
    await signIn(email, home);
    expect(await noticesFor(email)).toHaveLength(1);
  });

  it('treats a Google sign-in as any other: the first makes the account and mails nothing, a new device mails', async () => {
    const sandbox = server.app.identitySandbox!;
    const email = uniqueEmail('google').replace(/@example\.com$/, '@gmail.com');
    const identity = { sub: `sub-${email}`, email, emailVerified: true };
    const signInWithGoogle = async (userAgent: string) => {
      const response = await server.app.inject({
        method: 'POST',
        url: '/api/auth/oauth/google/verify-token',
        headers: { 'user-agent': userAgent },
        remoteAddress: home.address,
        payload: { code: await sandbox.issueGoogleCode(identity, {}), clientType: 'WEB' },
      });
      expect(response.statusCode, response.body).toBe(200);
    };
    await signInWithGoogle(CHROME_ON_MAC);
    await signInWithGoogle(CHROME_ON_MAC);
    expect(await noticesFor(email)).toHaveLength(0);
    await signInWithGoogle(FIREFOX_ON_WINDOWS);
    expect(await noticesFor(email)).toHaveLength(1);
    expect((await noticeMailedTo(email)).text).toContain('How: with Google');
  });

  /** An owner signed in at home, and someone else signed in with his password elsewhere. */
  async function strangerSignsIn(label: string) {
    const email = uniqueEmail(label);
    await register(server.app, email, PASSWORD);
    const owner = await signIn(email, home);
    const stranger = await signIn(email, { userAgent: FIREFOX_ON_WINDOWS, address: '192.0.2.50' });
    const code = linkIn(await noticeMailedTo(email)).searchParams.get('code') ?? '';
    return { email, owner, stranger, code };
  }

  const reportSignIn = (code: string) => post(server.app, '/auth/sign-ins/not-me', { code });

  it('changes nothing when the link is only opened; the button ends every session and mails a reset', async () => {
    const { email, owner, stranger, code } = await strangerSignsIn('not-me');
    // A mail scanner opening the link gets the page, which does nothing by itself.
    const page = await server.app.inject({
      method: 'GET',
      url: `/account/sign-in-not-me?code=${encodeURIComponent(code)}`,
    });
    expect(page.statusCode).toBeLessThan(500);
    expect((await getProfile(server.app, stranger.accessToken)).statusCode).toBe(200);
    expect((await getProfile(server.app, owner.accessToken)).statusCode).toBe(200);

    const response = await reportSignIn(code);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<{ message: string }>().message).toContain('Every device was signed out');
    expect((await getProfile(server.app, stranger.accessToken)).statusCode).toBe(401);
    expect((await getProfile(server.app, owner.accessToken)).statusCode).toBe(401);
    const refreshed = await post(server.app, '/auth/refresh', {
      refreshToken: stranger.refreshToken,
    });
    expect(refreshed.statusCode).toBe(401);
    // The password whoever signed in knew no longer works.
    const withOldPassword = await post(server.app, '/auth/local/login/email', {
      email,
      password: PASSWORD,
    });
    expect(withOldPassword.statusCode).toBe(401);

    // The reset link went to the account's address, and works.
    const resetMail = await server.inbox.waitFor(
      (mail) => mail.to.includes(email) && mail.subject.includes('Choose a new password'),
    );
    const resetLink = linkIn(resetMail);
    expect(resetLink.pathname).toBe('/account/recover/new');
    const reset = await post(server.app, '/auth/reset-password/confirm', {
      email,
      code: resetLink.searchParams.get('code'),
      newPassword: 'owner is back in',
    });
    expect(reset.statusCode, reset.body).toBe(200);
    await signIn(email, home, 'owner is back in');
  });

  it("'This wasn't me' puts the intruder out for good: the passkey he added does not sign in", async () => {
    const email = uniqueEmail('not-me-passkey');
    await register(server.app, email, PASSWORD);
    const owner = await signIn(email, home);
    const ownersKey = createPasskeyAuthenticator();
    await addPasskey(server.app, owner.accessToken, ownersKey);
    const intruder = await signIn(email, { userAgent: FIREFOX_ON_WINDOWS, address: '192.0.2.51' });
    const intrudersKey = createPasskeyAuthenticator();
    await addPasskey(server.app, intruder.accessToken, intrudersKey);
    const code = linkIn(await noticeMailedTo(email)).searchParams.get('code') ?? '';

    expect((await reportSignIn(code)).statusCode).toBe(200);
    expect((await signInWithPasskey(server.app, intrudersKey)).statusCode).toBe(401);
    // The owner's passkey, added before the reported sign-in, is his and stays.
    expect((await signInWithPasskey(server.app, ownersKey)).statusCode).toBe(200);
  });

  it("'This wasn't me' after the intruder moved the email mails the reset link to the owner, not to him", async () => {
    const email = uniqueEmail('not-me-moved');
    const intrudersEmail = uniqueEmail('not-me-intruder');
    await register(server.app, email, PASSWORD);
    await signIn(email, home);
    const intruder = await signIn(email, { userAgent: FIREFOX_ON_WINDOWS, address: '192.0.2.52' });
    await changeEmailThroughLink(server, intruder.accessToken, {
      newEmail: intrudersEmail,
      password: PASSWORD,
    });
    const code = linkIn(await noticeMailedTo(email)).searchParams.get('code') ?? '';

    // Not refused for the moved address: the reset link goes where the notice went.
    expect((await reportSignIn(code)).statusCode).toBe(200);
    const resetMail = await server.inbox.waitFor(
      (mail) =>
        (mail.to.includes(email) || mail.to.includes(intrudersEmail)) &&
        mail.subject.includes('Choose a new password'),
    );
    expect(resetMail.to).not.toContain(intrudersEmail);
    expect(resetMail.to).toContain(email);
    const resetLink = linkIn(resetMail);
    expect(resetLink.searchParams.get('email')).toBe(email);
    const reset = await post(server.app, '/auth/reset-password/confirm', {
      email,
      code: resetLink.searchParams.get('code'),
      newPassword: 'owner is back in',
    });
    expect(reset.statusCode, reset.body).toBe(200);
  });

  it('refuses a used code and an expired one', async () => {
    const used = await strangerSignsIn('used-code');
    expect((await reportSignIn(used.code)).statusCode).toBe(200);
    const again = await reportSignIn(used.code);
    expect(again.statusCode).toBe(400);
    expect(again.json<{ message: string }>().message).toContain('invalid, was used already');

    const expired = await strangerSignsIn('expired-code');
    await db()
      .updateTable('signInEvents')
      .set({ notMeExpiresAt: new Date(Date.now() - 1000) })
      .where('notMeCodeHash', 'is not', null)
      .where(
        'userId',
        'in',
        db().selectFrom('users').select('id').where('email', '=', expired.email),
      )
      .execute();
    expect((await reportSignIn(expired.code)).statusCode).toBe(400);
    // Refused: nothing changed.
    expect((await getProfile(server.app, expired.owner.accessToken)).statusCode).toBe(200);
    expect((await reportSignIn('not-a-code')).statusCode).toBe(400);
  });

  it('gives the link a week', async () => {
    const { email } = await strangerSignsIn('week');
    const row = await db()
      .selectFrom('signInEvents')
      .innerJoin('users', 'users.id', 'signInEvents.userId')
      .select(['signInEvents.createdAt', 'signInEvents.notMeExpiresAt'])
      .where('users.email', '=', email)
      .where('signInEvents.notMeCodeHash', 'is not', null)
      .executeTakeFirstOrThrow();
    const validMs = row.notMeExpiresAt!.getTime() - row.createdAt.getTime();
    expect(Math.round(validMs / DAY_MS)).toBe(7);
  });
});
