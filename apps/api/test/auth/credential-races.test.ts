// A password check takes tens of milliseconds; the owner's reset can land inside it. Whatever was
// checked against the old credentials must not outlive them. The hasher here holds one check
// open (after it has verified) while the test lets the owner act.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createPasswordHasher, type PasswordHasher } from '../../src/security/password-hasher';
import { login, post, registerAndLogin } from '../support/accounts';
import { linkIn, startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

/** The real hasher; `holdNextVerify` keeps the next verify's answer until released. */
function holdingHasher() {
  const real = createPasswordHasher();
  let held: { reached: () => void; release: Promise<void> } | undefined;
  const hasher: PasswordHasher & {
    holdNextVerify(): { reached: Promise<void>; release(): void };
  } = {
    hash: (password) => real.hash(password),
    verifyAgainstNothing: (password) => real.verifyAgainstNothing(password),
    load: () => real.load(),
    close: () => real.close(),
    async verify(hash, password) {
      const result = await real.verify(hash, password);
      const hold = held;
      held = undefined;
      if (hold) {
        hold.reached();
        await hold.release;
      }
      return result;
    },
    holdNextVerify() {
      let reached = () => {};
      let release = () => {};
      const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
      held = { reached, release: new Promise<void>((resolve) => (release = resolve)) };
      return { reached: reachedPromise, release: () => release() };
    },
  };
  return hasher;
}

describe.each(testDatabaseKinds)('credentials changing during a check on $name', (kind) => {
  let server: TestServer;
  const hasher = holdingHasher();
  beforeAll(async () => {
    server = await startTestServer(kind, { passwordHasher: hasher });
  });
  afterAll(async () => {
    await server.close();
    await hasher.close();
  });

  async function ownerResets(email: string, newPassword: string): Promise<void> {
    await post(server.app, '/auth/reset-password', { email });
    const message = await server.inbox.waitFor(
      (mail) => mail.to.includes(email) && mail.subject.includes('Reset'),
    );
    const response = await post(server.app, '/auth/reset-password/confirm', {
      email,
      code: linkIn(message).searchParams.get('code'),
      newPassword,
    });
    expect(response.statusCode, response.body).toBe(200);
  }

  it('a sign-in with the old password that overlapped a reset opens no session', async () => {
    const email = uniqueEmail('race-login');
    await registerAndLogin(server.app, email, 'correct horse');
    const hold = hasher.holdNextVerify();
    const attacker = post(server.app, '/auth/local/login/email', {
      email,
      password: 'correct horse',
    });
    await hold.reached;
    await ownerResets(email, 'owner took it back');
    hold.release();
    expect((await attacker).statusCode).toBe(401);
  });

  it('a password change that overlapped a reset does not override it', async () => {
    const email = uniqueEmail('race-change');
    const stolen = await registerAndLogin(server.app, email, 'correct horse');
    const hold = hasher.holdNextVerify();
    const attacker = post(
      server.app,
      '/auth/change-password',
      { oldPassword: 'correct horse', newPassword: 'attacker password' },
      stolen.accessToken,
    );
    await hold.reached;
    await ownerResets(email, 'owner took it back');
    hold.release();
    expect((await attacker).statusCode).toBe(401);
    await login(server.app, email, 'owner took it back');
  });

  it('an email change asked for across a reset changes nothing and mails nothing', async () => {
    const email = uniqueEmail('race-email');
    const newEmail = uniqueEmail('race-email-attacker');
    const stolen = await registerAndLogin(server.app, email, 'correct horse');
    const hold = hasher.holdNextVerify();
    const attacker = post(
      server.app,
      '/auth/change-email',
      { newEmail, password: 'correct horse' },
      stolen.accessToken,
    );
    await hold.reached;
    await ownerResets(email, 'owner took it back');
    hold.release();
    const refused = await attacker;
    expect(refused.statusCode, refused.body).toBe(401);
    // Neither a confirmation link nor a "this wasn't me" notice was written for it.
    const outbox = await server.app.database.db
      .selectFrom('outboxEmails')
      .select('template')
      .where('recipient', 'in', [email, newEmail])
      .where('template', 'in', ['email-change-confirmation', 'email-change-notice'])
      .execute();
    expect(outbox).toEqual([]);
  });
});
