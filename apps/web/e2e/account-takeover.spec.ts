import type { APIRequestContext, Page } from '@playwright/test';

import {
  createUser,
  expect,
  expectNoSeriousA11yViolations,
  linkIn,
  readEmail,
  signIn,
  test,
  toast,
  uniqueEmail,
  watchContentSecurityPolicy,
} from './support/fixtures';

const PASSWORD = 'correct horse battery';

/** Submits the sign-in form and waits for the server's answer to it. */
async function submitSignIn(page: Page): Promise<number> {
  const answered = page.waitForResponse((response) =>
    response.url().endsWith('/api/auth/local/login/email'),
  );
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  return (await answered).status();
}

/** What a caller with the password does through the API, as another browser would. */
async function signInThroughApi(request: APIRequestContext, email: string, password: string) {
  const response = await request.post('/api/auth/local/login/email', {
    data: { email, password },
  });
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { accessToken: string }).accessToken;
}

async function moveAccountThroughApi(
  request: APIRequestContext,
  accessToken: string,
  change: { newEmail: string; password: string; confirm: boolean },
): Promise<void> {
  const asked = await request.post('/api/auth/change-email', {
    headers: { authorization: `Bearer ${accessToken}` },
    data: { newEmail: change.newEmail, password: change.password },
  });
  expect(asked.status(), await asked.text()).toBe(200);
  if (!change.confirm) return;
  const link = new URL(
    linkIn(await readEmail(request, change.newEmail, 'Confirm your new email address')),
    'http://localhost',
  );
  const confirmed = await request.post('/api/auth/change-email/verify', {
    data: { code: link.searchParams.get('code'), newEmail: change.newEmail },
  });
  expect(confirmed.status(), await confirmed.text()).toBe(200);
}

/**
 * What the owner of an account sees when someone who knows the password tries to take it, and
 * what that someone is left with. The rules themselves are tested in the API suite
 * (apps/api/test/auth/account-takeover.test.ts, rate-limits.test.ts).
 */
test.describe('account takeover', () => {
  test('"This was not me" in the notice cancels the change and signs everyone out', async ({
    page,
    browser,
    request,
  }) => {
    const owner = uniqueEmail('owner');
    const thief = uniqueEmail('thief');
    await createUser(request, owner, PASSWORD);
    // The owner is signed in on his own computer.
    await signIn(page, owner, PASSWORD);

    // Someone with the password asks, from another browser, to move the account to his address.
    const attackerContext = await browser.newContext();
    const attackerViolations = await watchContentSecurityPolicy(attackerContext);
    const attacker = await attackerContext.newPage();
    await signIn(attacker, owner, PASSWORD);
    await attacker.goto('/dashboard/settings');
    await attacker.getByRole('button', { name: 'Change Email' }).click();
    const form = attacker.getByRole('form', { name: 'Change email' });
    await form.getByLabel('New email').fill(thief);
    await form.getByLabel('Current password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Save Changes' }).click();
    await expect(toast(attacker, 'Confirmation email sent successfully')).toBeVisible();
    const attackerRefreshToken = await attacker.evaluate(() =>
      localStorage.getItem('kegel-coach.refreshToken'),
    );

    // The owner opens the notice that went to his address and presses its button.
    const notice = await readEmail(
      request,
      owner,
      'Your Kegel Coach email address is being changed',
    );
    await page.goto(`/dev/inbox/${notice.id}`);
    await page.getByRole('link', { name: 'This was not me' }).click();

    await expect(page).toHaveURL(/\/account\/cancel-email-change\?code=/);
    // Opening the link changes nothing (mail scanners open links): the owner confirms.
    await expect(
      page.getByRole('heading', { level: 1, name: 'Was this change not yours?' }),
    ).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await page.getByRole('button', { name: 'Cancel the change' }).click();
    await expect(
      page.getByRole('heading', { level: 1, name: 'Email change cancelled' }),
    ).toBeVisible();
    await expect(toast(page, 'Email change cancelled')).toBeVisible();
    await expect(page.getByText(/Whoever asked for the change knows your password/)).toBeVisible();
    // The password it had no longer opens the account.
    expect(
      (
        await request.post('/api/auth/local/login/email', {
          data: { email: owner, password: PASSWORD },
        })
      ).status(),
    ).toBe(401);
    await expect(page.getByRole('link', { name: 'Choose a new password' })).toHaveAttribute(
      'href',
      '/auth/reset',
    );
    // His own session ended with the others: the header no longer shows him signed in.
    await expect(page.getByRole('banner').getByRole('link', { name: 'Sign In' })).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem('kegel-coach.accessToken'))).toBeNull();
    await expectNoSeriousA11yViolations(page);

    // The confirmation link mailed to the new address is dead, and so is the attacker's session.
    const confirmation = await readEmail(request, thief, 'Confirm your new email address');
    await attacker.goto(linkIn(confirmation));
    await expect(
      toast(attacker, 'This link is invalid or has expired. Please, try again.'),
    ).toBeVisible();
    await expect(attacker).toHaveURL(/\/auth\/login\?r=%2Fdashboard%2Fsettings$/);
    expect(
      (
        await request.post('/api/auth/refresh', { data: { refreshToken: attackerRefreshToken } })
      ).status(),
    ).toBe(401);
    await attackerContext.close();
    expect(attackerViolations, 'Content-Security-Policy violations').toEqual([]);
  });

  test('the owner\'s "This was not me" still works after the attacker used his own', async ({
    page,
    request,
  }) => {
    const owner = uniqueEmail('owner-first');
    const thief = uniqueEmail('thief-first');
    const thiefAgain = uniqueEmail('thief-again');
    await createUser(request, owner, PASSWORD);

    // Someone with the password moves the account to his address and confirms it.
    const stolen = await signInThroughApi(request, owner, PASSWORD);
    await moveAccountThroughApi(request, stolen, {
      newEmail: thief,
      password: PASSWORD,
      confirm: true,
    });
    const ownersNotice = await readEmail(
      request,
      owner,
      'Your Kegel Coach email address is being changed',
    );
    // He asks for a second change, uses its "This was not me" from his own mailbox, and sets a
    // password through his mailbox.
    await moveAccountThroughApi(request, stolen, {
      newEmail: thiefAgain,
      password: PASSWORD,
      confirm: false,
    });
    const thiefsNotice = await readEmail(request, thief, 'email address is being changed');
    const thiefsUndo = new URL(linkIn(thiefsNotice), 'http://localhost').searchParams.get('code');
    expect(
      (
        await request.post('/api/auth/change-email/cancel', { data: { code: thiefsUndo } })
      ).status(),
    ).toBe(200);
    await request.post('/api/auth/reset-password', { data: { email: thief } });
    const thiefsReset = new URL(
      linkIn(await readEmail(request, thief, 'Reset your Kegel Coach password')),
      'http://localhost',
    );
    expect(
      (
        await request.post('/api/auth/reset-password/confirm', {
          data: {
            email: thief,
            code: thiefsReset.searchParams.get('code'),
            newPassword: 'the thief keeps it',
          },
        })
      ).status(),
    ).toBe(200);

    // The owner was told of the second change too, at his own address, and until when.
    const toldAgain = await readEmail(
      request,
      owner,
      'Your Kegel Coach email address is being changed again',
    );
    expect(toldAgain.text).toContain(thiefAgain);
    expect(toldAgain.text).toMatch(/until \w+ \d+, \d{4} at \d+:\d\d [AP]M \(UTC\)/);

    // The owner presses the button of the first notice: it still works.
    await page.goto(`/dev/inbox/${ownersNotice.id}`);
    await page.getByRole('link', { name: 'This was not me' }).click();
    await page.getByRole('button', { name: 'Cancel the change' }).click();
    await expect(
      page.getByRole('heading', { level: 1, name: 'Email change cancelled' }),
    ).toBeVisible();

    // The thief's password opens nothing; the owner sets his own through his own mailbox.
    for (const email of [thief, owner]) {
      expect(
        (
          await request.post('/api/auth/local/login/email', {
            data: { email, password: 'the thief keeps it' },
          })
        ).status(),
      ).toBe(401);
    }
    await page.getByRole('link', { name: 'Choose a new password' }).click();
    // The reset page itself: the card before it is titled 'Email change cancelled', which a
    // label lookup for 'Email' would also find while the page changes.
    await expect(page).toHaveURL(/\/auth\/reset$/);
    // The login page stays drawn until the reset page's code has loaded: type into the new one.
    await expect(page.getByRole('heading', { name: 'Reset Password' })).toBeVisible();
    await page.getByRole('textbox', { name: 'Email' }).fill(owner);
    await page.getByRole('button', { name: /Send/ }).click();
    await page.goto(linkIn(await readEmail(request, owner, 'Reset your Kegel Coach password')));
    await page.getByLabel('New password', { exact: true }).fill('the owner took it back');
    await page.getByLabel('Repeat new password').fill('the owner took it back');
    await page.getByRole('button', { name: 'Change Password' }).click();
    await expect(page.getByRole('heading', { name: 'Password Changed!' })).toBeVisible();
    await signIn(page, owner, 'the owner took it back');
    await expect(page.getByRole('banner').getByText(owner)).toBeVisible();
  });

  test('after a genuine change, Account Settings says until when the old address can undo it', async ({
    page,
    request,
  }) => {
    const oldEmail = uniqueEmail('genuine-old');
    const newEmail = uniqueEmail('genuine-new');
    await createUser(request, oldEmail, PASSWORD);
    await signIn(page, oldEmail, PASSWORD);
    await page.goto('/dashboard/settings');
    await page.getByRole('button', { name: 'Change Email' }).click();
    const form = page.getByRole('form', { name: 'Change email' });
    await form.getByLabel('New email').fill(newEmail);
    await form.getByLabel('Current password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Save Changes' }).click();
    await expect(toast(page, 'Confirmation email sent successfully')).toBeVisible();

    const notice = await readEmail(request, oldEmail, 'email address is being changed');
    const until = /until (\w+ \d+, \d{4}) at/.exec(notice.text)?.[1];
    expect(until, notice.text).toBeTruthy();
    await page.goto(linkIn(await readEmail(request, newEmail, 'Confirm your new email address')));
    await expect(page.getByRole('heading', { name: 'Email changed successfully' })).toBeVisible();

    await page.goto('/dashboard/settings');
    const undo = page.getByRole('region', {
      name: 'Your previous email can still undo the change',
    });
    await expect(undo).toContainText(oldEmail);
    await expect(undo).toContainText(until!);
    // This browser signed in minutes before the change: it cannot close the window early.
    await expect(undo).toContainText('signed in at least 7 days before the change');
    await expect(undo.getByRole('button', { name: 'Close it now' })).toHaveCount(0);
    await expectNoSeriousA11yViolations(page);
    await page.screenshot({
      path: test.info().outputPath('settings-undo-window.png'),
      fullPage: true,
    });
  });

  test('after an email change, a reset link mailed to the old address no longer works', async ({
    page,
    request,
  }) => {
    const oldEmail = uniqueEmail('moved-old');
    const newEmail = uniqueEmail('moved-new');
    await createUser(request, oldEmail, PASSWORD);
    // A reset link sits in the old mailbox (which someone else may read by now).
    await request.post('/api/auth/reset-password', { data: { email: oldEmail } });
    const oldReset = linkIn(await readEmail(request, oldEmail, 'Reset your Kegel Coach password'));

    // The member moves the account to his new address and confirms it from that mailbox.
    const login = await request.post('/api/auth/local/login/email', {
      data: { email: oldEmail, password: PASSWORD },
    });
    const { accessToken } = (await login.json()) as { accessToken: string };
    const asked = await request.post('/api/auth/change-email', {
      headers: { authorization: `Bearer ${accessToken}` },
      data: { newEmail, password: PASSWORD },
    });
    expect(asked.status(), await asked.text()).toBe(200);
    await page.goto(linkIn(await readEmail(request, newEmail, 'Confirm your new email address')));
    await expect(page.getByRole('heading', { name: 'Email changed successfully' })).toBeVisible();

    await page.goto(oldReset);
    await page.getByLabel('New password', { exact: true }).fill('a password of my choosing');
    await page.getByLabel('Repeat new password').fill('a password of my choosing');
    await page.getByRole('button', { name: 'Change Password' }).click();

    await expect(
      toast(page, 'Failed to change password. Link is invalid or has expired.'),
    ).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Password Changed!' })).toBeHidden();
  });

  test('five wrong passwords, then even the right one is refused for a while', async ({
    page,
    request,
  }) => {
    const email = uniqueEmail('locked');
    await createUser(request, email, PASSWORD);
    await page.goto('/auth/login');
    await page.getByLabel('Email').fill(email);

    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await page.getByLabel('Password', { exact: true }).fill(`wrong guess ${attempt}`);
      expect(await submitSignIn(page)).toBe(401);
      await expect(toast(page, 'Invalid email or password').first()).toBeVisible();
    }

    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    expect(await submitSignIn(page)).toBe(429);
    await expect(
      toast(page, 'Too many failed sign-in attempts. Please try again later.'),
    ).toBeVisible();
    await expect(page).toHaveURL(/\/auth\/login$/);
    expect(await page.evaluate(() => localStorage.getItem('kegel-coach.accessToken'))).toBeNull();
  });
});
