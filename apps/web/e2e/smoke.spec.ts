import { expect, screenshotBothWidths, test } from './support/fixtures';

test.describe('the site shell on /home', () => {
  for (const viewport of [
    { width: 1440, height: 900 },
    { width: 375, height: 812 },
  ]) {
    test(`shows the header and footer at ${viewport.width}px`, async ({ page }, testInfo) => {
      await page.setViewportSize(viewport);
      await page.goto('/home');

      const header = page.getByRole('banner');
      const brand = header.getByRole('link', { name: 'Kegel Coach' });
      await expect(brand).toHaveAttribute('href', '/');
      await expect(brand.locator('svg')).toBeVisible();
      await expect(header.getByRole('link', { name: 'Sign In' })).toHaveAttribute(
        'href',
        '/auth/login',
      );

      await expect(page.getByRole('heading', { level: 1 })).toContainText("men's health");

      const footer = page.getByRole('contentinfo');
      for (const name of [
        'Features',
        'Support',
        'Privacy Policy',
        'Terms of Use',
        'Download App',
      ]) {
        await expect(footer.getByRole('link', { name, exact: true })).toBeVisible();
      }
      await expect(footer.getByText('2024, all rights reserved')).toBeVisible();

      const screenshot = await page.screenshot({
        path: testInfo.outputPath(`home-${viewport.width}.png`),
        fullPage: true,
      });
      await testInfo.attach(`home-${viewport.width}`, {
        body: screenshot,
        contentType: 'image/png',
      });
    });
  }

  test('sends / to /home and answers the health check', async ({ page, request }) => {
    await page.goto('/');
    await expect(page).toHaveURL(/\/home$/);
    const health = await request.get('/api/health');
    expect(health.status()).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
  });

  test('serves the app for a deep link (history fallback)', async ({ page }) => {
    await page.goto('/no/such/page');
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await page.getByRole('link', { name: 'Go to the home page' }).click();
    await expect(page).toHaveURL(/\/home$/);
  });

  test('a page whose code cannot be loaded says so in the site frame, and its reload works', async ({
    page,
  }, testInfo) => {
    // As when the connection drops, or a deploy has replaced the files this tab knows of.
    const loginPageCode = '**/assets/login-page-*.js';
    await page.route(loginPageCode, (route) => route.abort());
    await page.goto('/home');
    await page.getByRole('banner').getByRole('link', { name: 'Sign In' }).click();

    await expect(
      page.getByRole('heading', { level: 1, name: 'This page could not be loaded' }),
    ).toBeVisible();
    await expect(page.getByRole('banner').getByRole('link', { name: 'Kegel Coach' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Go to the home page' })).toHaveAttribute(
      'href',
      '/home',
    );
    await screenshotBothWidths(page, testInfo, 'page-could-not-load');

    await page.unroute(loginPageCode);
    await page.getByRole('button', { name: 'Reload the page' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible();
  });
});

test.describe('the pages beside the app, under their own Content-Security-Policy', () => {
  test('the API reference renders with its scripts and styles', async ({ page }) => {
    await page.goto('/api/docs');
    await expect(page.getByRole('heading', { name: /Kegel Coach API/ })).toBeVisible();
    await expect(page.getByText('/api/auth/local/login/email').first()).toBeVisible();
  });

  test('the local inbox renders with its style', async ({ page }) => {
    await page.goto('/dev/inbox');
    await expect(page.getByRole('heading', { name: 'Local inbox' })).toBeVisible();
    // Its one inline style is allowed by hash: the margin is the stylesheet's, not the default.
    expect(await page.evaluate(() => getComputedStyle(document.body).margin)).toBe('32px');
  });
});
