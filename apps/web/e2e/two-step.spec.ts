import { Secret, TOTP } from 'otpauth';

import {
  createUser,
  expect,
  expectNoSeriousA11yViolations,
  screenshotBothWidths,
  test,
  toast,
  uniqueEmail,
} from './support/fixtures';

const PASSWORD = 'correct horse battery';

/** What the member's authenticator app shows for the key Account Settings showed him. */
function appCode(setupKey: string, at = Date.now()): string {
  const secret = Secret.fromBase32(setupKey.replace(/\s/g, ''));
  return new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: at,
  });
}

/**
 * The next code the server will take: each 30-second step's code is taken once, so after a code
 * was used the app's next one is awaited (the server takes the step after the current one too).
 */
function nextAppCode(setupKey: string): string {
  return appCode(setupKey, Date.now() + 30_000);
}

test('a member turns two-step sign-in on, signs in with a code and with a recovery code, and turns it off', async ({
  page,
  request,
}, testInfo) => {
  test.slow();
  const email = uniqueEmail('two-step');
  await createUser(request, email, PASSWORD);
  await page.goto('/auth/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  // Turn it on: scan (or type the key), confirm with a code, save the recovery codes.
  await page.goto('/dashboard/settings');
  const section = page.getByRole('region', { name: 'Two-step sign-in' });
  await expect(section).toContainText('Off.');
  await section.getByRole('button', { name: 'Turn on' }).click();
  await expect(
    section.getByRole('img', { name: 'QR code for your authenticator app' }),
  ).toBeVisible();
  const setupKey = (await section.getByLabel('Setup key').textContent()) ?? '';
  expect(setupKey.replace(/\s/g, '')).toMatch(/^[A-Z2-7]{32}$/);
  await expectNoSeriousA11yViolations(page);
  await screenshotBothWidths(page, testInfo, 'two-step-setup');

  await section.getByRole('textbox', { name: 'Code', exact: true }).fill(appCode(setupKey));
  await section.getByRole('button', { name: 'Turn on' }).click();
  await expect(toast(page, 'Two-step sign-in is on')).toBeVisible();
  const codes = section.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
  await expect(codes).toHaveCount(10);
  const recoveryCodes = (await codes.allTextContents()).map((code) => code.trim());
  const download = page.waitForEvent('download');
  await section.getByRole('button', { name: 'Download (.txt)' }).click();
  expect((await download).suggestedFilename()).toBe('kegel-coach-recovery-codes.txt');
  await expectNoSeriousA11yViolations(page);
  await screenshotBothWidths(page, testInfo, 'two-step-recovery-codes');
  await section.getByRole('button', { name: 'I have saved them' }).click();
  await expect(section).toContainText('On.');

  // Sign out, then in: the password, then the code step.
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page).not.toHaveURL(/\/dashboard/);
  await page.goto('/auth/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Two-step sign-in' })).toBeVisible();
  await expect(page).toHaveURL(/\/auth\/login$/);
  await expectNoSeriousA11yViolations(page);
  await screenshotBothWidths(page, testInfo, 'two-step-code-step');
  await page.getByRole('textbox', { name: 'Code', exact: true }).fill(nextAppCode(setupKey));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  // Again, with a recovery code: it works once.
  const signInWithRecoveryCode = async (recoveryCode: string) => {
    await page.goto('/auth/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByRole('textbox', { name: 'Recovery code' }).fill(recoveryCode);
    await page.getByRole('button', { name: 'Verify' }).click();
  };
  await page.evaluate(() => localStorage.clear());
  await signInWithRecoveryCode(recoveryCodes[0]!);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.evaluate(() => localStorage.clear());
  await signInWithRecoveryCode(recoveryCodes[0]!);
  await expect(
    page.getByText('This recovery code is not right, or was used already.'),
  ).toBeVisible();
  // A reload keeps the code step (the sign-in is still open); 'Start over' goes back.
  await page.getByRole('button', { name: 'Start over' }).click();
  await signInWithRecoveryCode(recoveryCodes[1]!);
  await expect(page).toHaveURL(/\/dashboard$/);

  // Turn it off with a recovery code.
  await page.goto('/dashboard/settings');
  await section.getByRole('button', { name: 'Turn off' }).click();
  await section.getByLabel('Code from your app, or a recovery code').fill(recoveryCodes[2]!);
  await section.getByRole('button', { name: 'Turn off' }).click();
  await expect(toast(page, 'Two-step sign-in is off')).toBeVisible();
  await expect(section).toContainText('Off.');
});
