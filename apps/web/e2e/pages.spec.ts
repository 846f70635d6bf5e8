import {
  createUser,
  expect,
  expectNoSeriousA11yViolations,
  linkIn,
  readEmail,
  screenshotBothWidths,
  signIn,
  test,
  uniqueEmail,
} from './support/fixtures';

const PASSWORD = 'correct horse battery';

/**
 * Every page: what it shows, no serious axe-core violation, and screenshots at 1440 and 375 px
 * for people to look at.
 */
test.describe('every page, checked and scanned', () => {
  const visitorPages = [
    { name: 'home', path: '/home', heading: /men's health/ },
    { name: 'login', path: '/auth/login', heading: 'Sign In' },
    { name: 'register', path: '/auth/register', heading: 'Create Account' },
    { name: 'reset', path: '/auth/reset', heading: 'Reset Password' },
    {
      name: 'recover',
      path: '/account/recover/new?email=someone%40example.com&code=abc',
      heading: 'Choose a New Password',
    },
    {
      name: 'cancel-email-change-without-code',
      path: '/account/cancel-email-change',
      heading: 'This link does not work',
    },
    { name: 'not-found', path: '/no/such/page', heading: 'Page not found' },
  ];
  for (const { name, path, heading } of visitorPages) {
    test(`${name}: its heading, and no serious axe violation`, async ({ page }, testInfo) => {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
      await expectNoSeriousA11yViolations(page);
      await screenshotBothWidths(page, testInfo, name);
    });
  }

  test('register with empty fields: the messages shown, no serious axe violation', async ({
    page,
  }, testInfo) => {
    await page.goto('/auth/register');
    await page.getByRole('button', { name: 'Create Account' }).click();
    await expect(page.getByText('Email is required')).toBeVisible();
    await expect(page.getByText('Password is too short')).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await screenshotBothWidths(page, testInfo, 'register-errors');
  });

  test('reset confirmation: shown, no serious axe violation', async ({
    page,
    request,
  }, testInfo) => {
    const email = uniqueEmail('looked-at-reset');
    await createUser(request, email, PASSWORD);
    await page.goto('/auth/reset');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send Link to Email' }).click();
    await expect(page.getByRole('heading', { name: 'Check Your Email Inbox!' })).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await screenshotBothWidths(page, testInfo, 'reset-sent');
  });

  test('member pages (dashboard, settings forms, verified email): shown, no serious axe violation', async ({
    page,
    request,
  }, testInfo) => {
    const email = uniqueEmail('looked-at');
    await createUser(request, email, PASSWORD);
    await signIn(page, email, PASSWORD);
    await expect(page.getByText("You don't have active subscriptions yet")).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await screenshotBothWidths(page, testInfo, 'dashboard');

    await page.goto('/dashboard/settings');
    await page.getByRole('button', { name: 'Change Email' }).click();
    await page.getByRole('button', { name: 'Change Password' }).click();
    await expect(page.getByRole('form', { name: 'Change email' })).toBeVisible();
    await expect(page.getByRole('form', { name: 'Change password' })).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await screenshotBothWidths(page, testInfo, 'settings');

    const newEmail = uniqueEmail('looked-at-new');
    const form = page.getByRole('form', { name: 'Change email' });
    await form.getByLabel('New email').fill(newEmail);
    await form.getByLabel('Current password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Save Changes' }).click();
    await expect(page.getByText('Please check your inbox to confirm new email.')).toBeVisible();
    await page.goto(linkIn(await readEmail(request, newEmail, 'Confirm')));
    await expect(page.getByRole('heading', { name: 'Email changed successfully' })).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await screenshotBothWidths(page, testInfo, 'verify-email');
  });

  test('keyboard only: sign in with Tab and Enter', async ({ page, request }) => {
    const email = uniqueEmail('keyboard');
    await createUser(request, email, PASSWORD);
    await page.goto('/auth/login');
    // The show/hide toggle below answers only once the app runs (what is typed before is kept,
    // prerendered-pages.spec.ts).
    await expect(
      page.getByRole('main').getByRole('button', { name: 'Sign In', exact: true }),
    ).toBeEnabled();
    await page.getByLabel('Email').focus();
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    // Tab past the show/hide toggle, which works by keyboard too.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect(page.getByLabel('Password', { exact: true })).toHaveAttribute('type', 'text');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/dashboard$/);
  });
});
