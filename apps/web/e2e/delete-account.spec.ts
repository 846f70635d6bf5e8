import type { Page } from '@playwright/test';

import { formatLongDate } from '../src/shared/format/dates';
import { payWithCard, startCheckout, SUCCEEDS, waitForNewEndDate } from './support/checkout';
import {
  dismissToasts,
  expect,
  expectNoSeriousA11yViolations,
  readEmail,
  screenshotBothWidths,
  test,
  toast,
  uniqueEmail,
} from './support/fixtures';

const PASSWORD = 'correct horse battery';

test.use({ timezoneId: 'UTC' });

async function register(page: Page, email: string): Promise<void> {
  await page.goto('/auth/register');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(
    toast(page, 'Account has been created successfully! Log in to your account.'),
  ).toBeVisible();
  await expect(page).toHaveURL(/\/auth\/login$/);
}

async function signInOnLoginPage(page: Page, email: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
}

test('a member with a web pass deletes his account; the address can register again', async ({
  page,
  request,
}, testInfo) => {
  const email = uniqueEmail('deleted');
  await register(page, email);
  await signInOnLoginPage(page, email);
  await expect(page).toHaveURL(/\/dashboard$/);

  // A week of premium, bought on the web: deleting the account ends it, unrefunded.
  const checkout = await startCheckout(page, '1 Week');
  await payWithCard(checkout, SUCCEEDS);
  await checkout.waitForURL(/\/purchase\/complete\?registered=true&/);
  await checkout.close();
  const passEnd = await waitForNewEndDate(page, request, null);

  await page.goto('/dashboard/settings');
  await dismissToasts(page);
  await page.getByRole('button', { name: 'Delete account' }).click();
  const form = page.getByRole('form', { name: 'Delete account' });
  await expect(form).toContainText('You are signed out everywhere');
  await expect(form).toContainText('Your purchase records are kept for accounting, tied to no one');
  await expect(form).toContainText(
    `Your premium pass until ${formatLongDate(passEnd, 'UTC')} ends with your account and is not refunded.`,
  );
  await expect(form.getByRole('checkbox')).toHaveCount(0);
  await expectNoSeriousA11yViolations(page);
  await screenshotBothWidths(page, testInfo, 'settings-delete-account');

  // A wrong password is refused under its field; nothing is deleted.
  await form.getByLabel('Current password').fill('not my password');
  await form.getByLabel('Type DELETE to confirm').fill('DELETE');
  await form.getByRole('button', { name: 'Delete account' }).click();
  await expect(form.getByText('Current password is incorrect')).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard\/settings$/);

  await form.getByLabel('Current password').fill(PASSWORD);
  await form.getByRole('button', { name: 'Delete account' }).click();

  await expect(page).toHaveURL(/\/account\/deleted$/);
  await expect(
    page.getByRole('heading', { level: 1, name: 'Your account has been deleted' }),
  ).toBeVisible();
  await expect(page.getByRole('main')).toContainText(`We sent a confirmation to ${email}.`);
  await expect(page.getByRole('banner').getByRole('link', { name: 'Sign In' })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('kegel-coach.accessToken'))).toBeNull();
  await expectNoSeriousA11yViolations(page);
  await screenshotBothWidths(page, testInfo, 'account-deleted');

  const confirmation = await readEmail(request, email, 'Your Kegel Coach account was deleted');
  expect(confirmation.text).toContain('this address can create a new account');

  // The old credentials open nothing any more.
  await dismissToasts(page);
  await page.goto('/auth/login');
  await signInOnLoginPage(page, email);
  await expect(toast(page, 'Invalid email or password')).toBeVisible();
  await expect(page).toHaveURL(/\/auth\/login$/);

  // The address registers anew, as a new account without the old pass.
  await dismissToasts(page);
  await register(page, email);
  await signInOnLoginPage(page, email);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByText("You don't have active subscriptions yet")).toBeVisible();
});
