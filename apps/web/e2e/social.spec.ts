import type { Page } from '@playwright/test';

import {
  createUser,
  dismissToasts,
  expect,
  expectNoSeriousA11yViolations,
  linkIn,
  profileOf,
  readEmail,
  screenshotBothWidths,
  signIn,
  test,
  toast,
  uniqueEmail,
} from './support/fixtures';

/**
 * 'Continue with Google' and 'Continue with Apple' against `npm start`'s real server
 * and its local identity sandbox: the provider scripts, their popups, the code exchange and the
 * token checks all run as they would with the real providers.
 */

/** Clicks a provider's button and signs in on the sandbox page that opens as a popup. */
async function signInThroughPopup(
  page: Page,
  button: 'Continue with Google' | 'Continue with Apple',
  identity: { email: string; verified?: boolean },
): Promise<void> {
  const popupOpened = page.waitForEvent('popup');
  await page.getByRole('button', { name: button }).click();
  const popup = await popupOpened;
  await popup.getByLabel('Email', { exact: true }).fill(identity.email);
  if (identity.verified === false) await popup.getByLabel('Email verified').uncheck();
  const closed = popup.waitForEvent('close');
  await popup.getByRole('button', { name: 'Continue' }).click();
  await closed;
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/auth\/login$/);
}

test.describe('sign in with Google and Apple', () => {
  test('Google: a new person reaches /dashboard with their email, then sets a password', async ({
    page,
    request,
  }, testInfo) => {
    const email = uniqueEmail('google');
    await page.goto('/auth/login');
    await expect(page.getByText('or', { exact: true })).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await screenshotBothWidths(page, testInfo, 'login-with-social');

    const popupOpened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Continue with Google' }).click();
    const popup = await popupOpened;
    await expect(popup.getByRole('heading', { name: 'Sign in with Google' })).toBeVisible();
    await screenshotBothWidths(popup, testInfo, 'identity-sandbox-google');
    await popup.getByLabel('Email', { exact: true }).fill(email);
    await popup.getByRole('button', { name: 'Continue' }).click();

    await expect(toast(page, 'Successfully authenticated')).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('banner').getByRole('link', { name: email })).toBeVisible();

    // No password yet: Account Settings offers to set one through an emailed link.
    await page.getByRole('link', { name: 'Account Settings' }).click();
    await expect(page.getByRole('button', { name: 'Change Password' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Email me a link' }).click();
    await expect(page.getByRole('status')).toHaveText(
      `We sent a link to ${email} to set your password.`,
    );
    await screenshotBothWidths(page, testInfo, 'settings-without-password');
    const message = await readEmail(request, email, 'Reset your Kegel Coach password');
    await signOut(page);
    await page.goto(linkIn(message));
    await page.getByLabel('New password', { exact: true }).fill('a first password');
    await page.getByLabel('Repeat new password').fill('a first password');
    await page.getByRole('button', { name: 'Change Password' }).click();
    await expect(page.getByRole('heading', { name: 'Password Changed!' })).toBeVisible();
    await signIn(page, email, 'a first password');
  });

  test('Google with the verified Gmail address of a password account reaches that account', async ({
    page,
    request,
  }) => {
    // Registered with a password and never proven: Google's proof of the address wins (Google
    // answers for Gmail addresses), the password (possibly set by someone else) is removed and
    // the owner is told.
    const email = uniqueEmail('has-password').replace(/@example\.com$/, '@gmail.com');
    const registered = await request.post('/api/auth/local/register/email', {
      data: { email, password: 'correct horse battery' },
    });
    const { id } = (await registered.json()) as { id: string };
    await page.goto('/auth/login');
    await signInThroughPopup(page, 'Continue with Google', { email: email.toUpperCase() });
    await expect(page).toHaveURL(/\/dashboard$/);
    expect(await profileOf(page, request)).toMatchObject({ id, email, hasPassword: false });
    const notice = await readEmail(request, email, 'Google sign-in was added');
    expect(notice.text).toContain('password set when the account was created was removed');
  });

  test('Google with the verified address of another domain that an account has is refused, with a way in', async ({
    page,
    request,
  }) => {
    // Google does not answer for this domain's addresses today: its proof may be stale.
    const email = uniqueEmail('other-domain');
    await createUser(request, email, 'correct horse battery');
    await page.goto('/auth/login');
    await signInThroughPopup(page, 'Continue with Google', { email });
    await expect(
      toast(
        page,
        'An account with this email already exists. Sign in with your email and password instead (use "Forgot your password?" if you have none).',
      ),
    ).toBeVisible();
    await expect(page).toHaveURL(/\/auth\/login$/);
    await dismissToasts(page);
    await signIn(page, email, 'correct horse battery');
  });

  test('Apple: the first sign-in makes the account; the next one reaches the same account', async ({
    page,
    request,
  }, testInfo) => {
    const email = uniqueEmail('apple');
    await page.goto('/auth/register');
    await expect(page.getByRole('button', { name: 'Continue with Apple' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Continue with Google' })).toBeVisible();
    await screenshotBothWidths(page, testInfo, 'register-with-social');
    await signInThroughPopup(page, 'Continue with Apple', { email });
    await expect(toast(page, 'Successfully authenticated')).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard$/);
    const first = await profileOf(page, request);
    expect(first.email).toBe(email);

    await signOut(page);
    // The same Apple ID again: like Apple, the sandbox leaves the email out this time.
    await signInThroughPopup(page, 'Continue with Apple', { email });
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('banner').getByRole('link', { name: email })).toBeVisible();
    expect((await profileOf(page, request)).id).toBe(first.id);
  });

  test('an unverified Google email is refused with a clear error', async ({ page, request }) => {
    const email = uniqueEmail('taken');
    await createUser(request, email, 'correct horse battery');
    await page.goto('/auth/login');
    await signInThroughPopup(page, 'Continue with Google', { email, verified: false });
    await expect(
      toast(
        page,
        'Your provider has not verified this email address, so it cannot be used to sign in here. Verify it with your provider, or sign in with email and password.',
      ),
    ).toBeVisible();
    await expect(page).toHaveURL(/\/auth\/login$/);
  });
});
