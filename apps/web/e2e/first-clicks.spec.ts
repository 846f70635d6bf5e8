// No dead clicks on the pages the build draws (issue 30): a control that shows before the app runs
// either works then (a plain link) or looks and behaves disabled until it works. Each journey
// slows the CPU four times, as a modest phone is, opens the page and clicks one control the moment
// Playwright can: a control drawn enabled is clicked at once, and a disabled one is waited for,
// which is what a person does. Each click must then do what it says.
import type { Page } from '@playwright/test';

import { createUser, expect, test, uniqueEmail } from './support/fixtures';

const PASSWORD = 'correct horse battery';
/** What a click's effect may take at four times slower, on a loaded machine. */
const EFFECT = { timeout: 20_000 };

/**
 * Opens `path` as a slow phone on a slow network would, handing back as soon as the drawn page has
 * arrived: its scripts come a second and a half after it, so every click below lands before the
 * app runs unless the control waits for it.
 */
async function openSlowly(page: Page, path: string): Promise<void> {
  const devTools = await page.context().newCDPSession(page);
  await devTools.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await page.route('**/assets/*.js', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await route.continue();
  });
  await page.goto(path, { waitUntil: 'commit' });
}

/** The control, found as a person finds it: by its role and name, inside the page's main part. */
function control(page: Page, role: 'button' | 'link' | 'radio', name: string | RegExp) {
  return page.getByRole('main').getByRole(role, { name, exact: typeof name === 'string' });
}

test.describe('a drawn page before its code runs', () => {
  for (const path of ['/home', '/auth/login', '/auth/register', '/auth/reset', '/purchase']) {
    test(`${path}: every button is disabled and looks it (links work as they are)`, async ({
      browser,
    }) => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await page.goto(path);
      const buttons = await page.locator('button').evaluateAll((elements) =>
        elements.map((element) => ({
          name: element.getAttribute('aria-label') ?? element.textContent,
          disabled: (element as HTMLButtonElement).disabled,
          opacity: Number(getComputedStyle(element).opacity),
        })),
      );
      for (const button of buttons) {
        expect(button.disabled, `${button.name} is disabled`).toBe(true);
        expect(button.opacity, `${button.name} looks disabled`).toBeLessThan(1);
      }
      await context.close();
    });
  }
});

test.describe('the first click on a drawn page', () => {
  for (const provider of ['Google', 'Apple'] as const) {
    test(`"Continue with ${provider}" on /auth/login opens its popup`, async ({ page }) => {
      await openSlowly(page, '/auth/login');
      const popup = page.waitForEvent('popup', EFFECT);
      await control(page, 'button', `Continue with ${provider}`).click();
      await expect(
        (await popup).getByRole('heading', { name: `Sign in with ${provider}` }),
      ).toBeVisible(EFFECT);
    });
  }

  test('"Show password" on /auth/login shows it', async ({ page }) => {
    await openSlowly(page, '/auth/login');
    const password = page.getByLabel('Password', { exact: true });
    await password.fill(PASSWORD);
    await control(page, 'button', 'Show password').click();
    await expect(password).toHaveAttribute('type', 'text', EFFECT);
  });

  test('"Sign In" on /auth/login signs in', async ({ page, request }) => {
    const email = uniqueEmail('first-click');
    await createUser(request, email, PASSWORD);
    await openSlowly(page, '/auth/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await control(page, 'button', 'Sign In').click();
    await expect(page).toHaveURL(/\/dashboard$/, EFFECT);
  });

  test('"Forgot your password?" on /auth/login opens /auth/reset', async ({ page }) => {
    await openSlowly(page, '/auth/login');
    await control(page, 'link', 'Forgot your password?').click();
    await expect(page).toHaveURL(/\/auth\/reset$/, EFFECT);
  });

  test('"Create Account" on /auth/register makes the account', async ({ page }) => {
    await openSlowly(page, '/auth/register');
    await page.getByLabel('Email').fill(uniqueEmail('first-register'));
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm password').fill(PASSWORD);
    await control(page, 'button', 'Create Account').click();
    await expect(page).not.toHaveURL(/\/auth\/register$/, EFFECT);
  });

  test('"Continue with Apple" on /auth/register opens its popup', async ({ page }) => {
    await openSlowly(page, '/auth/register');
    const popup = page.waitForEvent('popup', EFFECT);
    await control(page, 'button', 'Continue with Apple').click();
    await expect((await popup).getByRole('heading', { name: 'Sign in with Apple' })).toBeVisible(
      EFFECT,
    );
  });

  test('"Send Link to Email" on /auth/reset sends it', async ({ page }) => {
    await openSlowly(page, '/auth/reset');
    await page.getByLabel('Email').fill(uniqueEmail('first-reset'));
    await control(page, 'button', 'Send Link to Email').click();
    await expect(page.getByRole('heading', { name: 'Check Your Email Inbox!' })).toBeVisible(
      EFFECT,
    );
  });

  test('a plan, then "Pay with Stripe" on /purchase opens the checkout', async ({ page }) => {
    await openSlowly(page, '/purchase');
    const week = control(page, 'radio', '1 Week');
    await week.check();
    await expect(week).toBeChecked(EFFECT);
    await page.getByRole('textbox', { name: 'Email' }).fill(uniqueEmail('first-buy'));
    const checkout = page.waitForEvent('popup', EFFECT);
    await control(page, 'button', 'Pay with Stripe').click();
    await (await checkout).waitForURL(/\/checkout\/cs_test_\w+$/, EFFECT);
  });

  test('"Sign In" on /home opens /auth/login', async ({ page }) => {
    await openSlowly(page, '/home');
    await page.getByRole('banner').getByRole('link', { name: 'Sign In', exact: true }).click();
    await expect(page).toHaveURL(/\/auth\/login/, EFFECT);
  });
});
