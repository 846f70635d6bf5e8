import {
  createUser,
  expect,
  signIn,
  test,
  uniqueEmail,
  watchContentSecurityPolicy,
  watchHydration,
} from './support/fixtures';

/**
 * The visitors' pages arrive drawn (the build prerenders them, scripts/prerender.mjs): they show
 * before any code runs, their forms cannot be sent by the browser itself meanwhile, and the app
 * takes them over without drawing them again (the `test` fixture fails a journey on a hydration
 * mismatch or a CSP violation, inline styles in the HTML among them).
 */
const prerendered = [
  { path: '/home', heading: /men's health/ },
  { path: '/auth/login', heading: 'Sign In', submit: 'Sign In' },
  { path: '/auth/register', heading: 'Create Account', submit: 'Create Account' },
  { path: '/auth/reset', heading: 'Reset Password', submit: /Send/ },
  { path: '/purchase', heading: 'Get Premium', submit: /Continue|Pay|Checkout/i },
];

test.describe('prerendered pages', () => {
  for (const { path, heading, submit } of prerendered) {
    test(`${path} shows before its code runs, with its submit held until the app takes over`, async ({
      browser,
    }) => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const violations = await watchContentSecurityPolicy(context);
      const page = await context.newPage();
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
      if (submit) {
        // The browser would send the fields in the address: nothing may send the form yet.
        await expect(
          page.getByRole('main').getByRole('button', { name: submit }).first(),
        ).toBeDisabled();
      }
      expect(violations).toEqual([]);
      await context.close();
    });
  }

  test('the app takes them over: no mismatch, and the forms answer', async ({ page }) => {
    await page.goto('/auth/login');
    await page.getByRole('main').getByRole('button', { name: 'Sign In', exact: true }).click();
    await expect(page.getByText('Email is required')).toBeVisible();

    await page.goto('/purchase');
    // The plans arrive after the takeover and the most popular is chosen.
    await expect(page.getByRole('radio').first()).toBeVisible();
    await expect(page.getByRole('radio', { checked: true })).toHaveCount(1);
  });

  test('what a visitor types before the app runs is kept, and sends once it does', async ({
    page,
    request,
  }) => {
    const email = uniqueEmail('typed-early');
    await createUser(request, email, 'correct horse battery');
    // A slow network: the page shows at once, its code only once the visitor has typed. (Held
    // for two seconds, as it was, the code arrived before the typing was done on a busy CI
    // machine, and the button was enabled already.)
    let releaseTheCode!: () => void;
    const codeHeld = new Promise<void>((resolve) => {
      releaseTheCode = resolve;
    });
    await page.route('**/assets/*.js', async (route) => {
      await codeHeld;
      await route.continue();
    });
    // The drawn page, not its code (module scripts hold back DOMContentLoaded).
    await page.goto('/auth/login', { waitUntil: 'commit' });
    const signInButton = page
      .getByRole('main')
      .getByRole('button', { name: 'Sign In', exact: true });
    await page.getByLabel('Email').click();
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type('correct horse battery');
    // Typed while the app was not running yet (its submit is still held).
    await expect(signInButton).toBeDisabled({ timeout: 1 });
    releaseTheCode();
    await expect(signInButton).toBeEnabled();
    await expect(page.getByLabel('Email')).toHaveValue(email);
    await expect(page.getByLabel('Password', { exact: true })).toHaveValue('correct horse battery');
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/dashboard$/);
  });

  test("a member's page shows the site's frame before its code, then his dashboard", async ({
    page,
    request,
  }) => {
    const email = uniqueEmail('framed');
    await createUser(request, email, 'correct horse battery');
    await signIn(page, email, 'correct horse battery');
    // A slow network: the page shows at once, its code two seconds later.
    await page.route('**/assets/*.js', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await route.continue();
    });
    await page.goto('/dashboard', { waitUntil: 'commit' });
    // Within a second, while the code is still two seconds away.
    await expect(page.getByRole('banner').getByRole('link', { name: 'Kegel Coach' })).toBeVisible({
      timeout: 1000,
    });
    await expect(page.getByRole('status')).toHaveText('Loading your profile', { timeout: 1 });
    // The app draws over the frame (no takeover, so no mismatch to report) with his page.
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
    await expect(page.getByRole('banner').getByRole('link', { name: email })).toBeVisible();
    await expect(page.getByRole('banner')).toHaveCount(1);
  });

  test('a visitor opening a member page is still sent to sign in', async ({ page }) => {
    await page.goto('/dashboard/settings');
    await expect(page).toHaveURL(/\/auth\/login\?r=/);
    await expect(page.getByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible();
    await expect(page.getByRole('banner')).toHaveCount(1);
  });

  test('a member opening a prerendered page is shown as signed in once the app runs', async ({
    page,
    request,
  }) => {
    const mismatches = watchHydration(page.context());
    const email = uniqueEmail('prerendered');
    await createUser(request, email, 'correct horse battery');
    await signIn(page, email, 'correct horse battery');
    await page.goto('/purchase');
    await expect(page.getByRole('banner').getByRole('link', { name: email })).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Email' })).toHaveValue(email);
    expect(mismatches).toEqual([]);
  });
});

test.describe('/home cards', () => {
  test("read 'Sign in' for a visitor and 'Go to Profile' for a member, with no mismatch", async ({
    page,
    request,
  }) => {
    const mismatches = watchHydration(page.context());
    await page.goto('/home');
    const main = page.getByRole('main');
    await expect(main.getByRole('link', { name: 'Sign in' })).toHaveCount(3);
    await expect(main.getByRole('link', { name: 'Go to Profile' })).toHaveCount(0);

    const email = uniqueEmail('home-cards');
    await createUser(request, email, 'correct horse battery');
    await signIn(page, email, 'correct horse battery');
    // The build drew the visitor's cards; the member's replace them once the app runs.
    await page.goto('/home');
    await expect(main.getByRole('link', { name: 'Go to Profile' })).toHaveCount(3);
    await expect(main.getByRole('link', { name: 'Sign in' })).toHaveCount(0);
    await main.getByRole('link', { name: 'Go to Profile' }).first().click();
    await expect(page).toHaveURL(/\/dashboard$/);
    expect(mismatches).toEqual([]);
  });
});
