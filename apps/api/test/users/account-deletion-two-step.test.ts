// "Delete account" while two-step sign-in is on: the password and a session (one opened before it
// was turned on, or a stolen one) are not enough, a current code or a recovery code must come too.
import { twoStepMessages } from '@kegel/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { getProfile, post, registerAndLogin } from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { appCode, turnOnTwoStep, useMovableClock, waitForNextCode } from '../support/two-step';

const PASSWORD = 'correct horse';

describe.each(testDatabaseKinds)('account deletion with two-step sign-in on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());
  afterEach(() => {
    vi.useRealTimers();
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
    expect(deleted.statusCode, deleted.body).toBe(400);
    expect(deleted.json()).toMatchObject({ message: twoStepMessages.secondFactorNeeded });
    expect((await getProfile(server.app, tokens.accessToken)).statusCode).toBe(200);
  });

  it('deletes the account with the password and a current code, or a recovery code', async () => {
    useMovableClock();
    const withCode = await registerAndLogin(server.app, uniqueEmail('delete-code'), PASSWORD);
    const { secret } = await turnOnTwoStep(server.app, withCode.accessToken);
    waitForNextCode(); // the code that turned it on took this step's
    const deleted = await post(
      server.app,
      '/users/delete',
      { password: PASSWORD, code: appCode(secret) },
      withCode.accessToken,
    );
    expect(deleted.statusCode, deleted.body).toBe(200);

    const withRecovery = await registerAndLogin(server.app, uniqueEmail('delete-rc'), PASSWORD);
    const { recoveryCodes } = await turnOnTwoStep(server.app, withRecovery.accessToken);
    const byRecovery = await post(
      server.app,
      '/users/delete',
      { password: PASSWORD, code: recoveryCodes[0]! },
      withRecovery.accessToken,
    );
    expect(byRecovery.statusCode, byRecovery.body).toBe(200);
  });
});
