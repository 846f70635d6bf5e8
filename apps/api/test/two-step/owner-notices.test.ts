// Every change of two-step sign-in is mailed to the owner: turned on, turned off, recovery codes
// renewed. A session is enough to make each (no password asked), so a stolen one must not bind
// the account to another phone, or take its recovery codes, unseen.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { post, registerAndLogin } from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { appCode, turnOnTwoStep, useMovableClock, waitForNextCode } from '../support/two-step';

const PASSWORD = 'correct horse';

describe.each(testDatabaseKinds)('two-step sign-in changes told by email on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  const mailsTo = async (email: string) =>
    (
      await server.app.database.db
        .selectFrom('outboxEmails')
        .select('template')
        .where('recipient', '=', email)
        .execute()
    ).map((row) => row.template);

  it('tells the owner by email when a session turns two-step sign-in on (else a stolen session locks him out unseen)', async () => {
    useMovableClock();
    const email = uniqueEmail('review-silent-turn-on');
    const tokens = await registerAndLogin(server.app, email, PASSWORD);
    const before = await mailsTo(email);
    // Whoever holds the session (no password asked) binds the account to his own phone; the
    // recovery codes are shown to him only. A reset does not turn it off (ADR 018): the owner
    // is out until support steps in.
    await turnOnTwoStep(server.app, tokens.accessToken);
    await expect
      .poll(async () => (await mailsTo(email)).length, { timeout: 2000 })
      .toBeGreaterThan(before.length);
    const mail = await server.inbox.waitFor(
      (sent) => sent.to.includes(email) && sent.subject.includes('was turned on'),
    );
    expect(mail.text).toContain('/dashboard/settings');
  });

  it('tells the owner when recovery codes are renewed and when two-step sign-in is turned off', async () => {
    useMovableClock();
    const email = uniqueEmail('two-step-notices');
    const tokens = await registerAndLogin(server.app, email, PASSWORD);
    const { secret } = await turnOnTwoStep(server.app, tokens.accessToken);
    waitForNextCode();
    const renewed = await post(
      server.app,
      '/auth/mfa/recovery-codes',
      { code: appCode(secret) },
      tokens.accessToken,
    );
    expect(renewed.statusCode, renewed.body).toBe(200);
    await server.inbox.waitFor(
      (sent) =>
        sent.to.includes(email) &&
        sent.subject === 'New recovery codes for your Kegel Coach account',
    );
    waitForNextCode();
    const off = await post(
      server.app,
      '/auth/mfa/totp/disable',
      { code: appCode(secret) },
      tokens.accessToken,
    );
    expect(off.statusCode, off.body).toBe(200);
    await server.inbox.waitFor(
      (sent) => sent.to.includes(email) && sent.subject.includes('was turned off'),
    );
    expect(await mailsTo(email)).toEqual(
      expect.arrayContaining([
        'two-step-turned-on',
        'two-step-recovery-codes-renewed',
        'two-step-turned-off',
      ]),
    );
  });
});
