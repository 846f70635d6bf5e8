import type { Locator, Page, TestInfo } from '@playwright/test';

import {
  createUser,
  expect,
  expectNoSeriousA11yViolations,
  readEmail,
  signIn,
  test,
  uniqueEmail,
  watchContentSecurityPolicy,
} from './support/fixtures';

const PASSWORD = 'correct horse battery';
const FIREFOX_ON_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

/** A screenshot of `target` at 1440 and 375 px, attached to the report. */
async function shootBothWidths(
  page: Page,
  target: Page | Locator,
  testInfo: TestInfo,
  name: string,
) {
  for (const width of [1440, 375]) {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
    await page.waitForTimeout(150);
    const path = testInfo.outputPath(`${name}-${width}.png`);
    const body =
      'goto' in target
        ? await target.screenshot({ path, fullPage: true })
        : await target.screenshot({ path });
    await testInfo.attach(`${name}-${width}`, { body, contentType: 'image/png' });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

/**
 * The member sees his sign-ins in Account Settings, and the notice of a sign-in from a new
 * device lets him put everyone out. The rules are tested in the API suite
 * (apps/api/test/sign-ins/).
 */
test.describe('sign-in history and the new-device notice', () => {
  test('the history lists sign-ins and a wrong password; "This wasn\'t me" signs everyone out', async ({
    page,
    browser,
    request,
  }, testInfo) => {
    const owner = uniqueEmail('history');
    await createUser(request, owner, PASSWORD);
    // Someone tries a wrong password first; then the owner signs in on his own computer.
    const wrong = await request.post('/api/auth/local/login/email', {
      data: { email: owner, password: 'not the password' },
    });
    expect(wrong.status()).toBe(401);
    await signIn(page, owner, PASSWORD);

    await page.goto('/dashboard/settings');
    const history = page.getByRole('list', { name: 'Sign-in history' });
    await expect(history.getByRole('listitem')).toHaveCount(2);
    await expect(history.getByRole('listitem').first()).toContainText('Signed in');
    await expect(history.getByRole('listitem').nth(1)).toContainText('Wrong password');
    await expectNoSeriousA11yViolations(page);
    const section = page.getByRole('region', { name: 'Sign-in history' });
    await shootBothWidths(page, section, testInfo, 'sign-in-history');

    // Someone with the password signs in from another browser: a device this account never used.
    const strangerContext = await browser.newContext({ userAgent: FIREFOX_ON_WINDOWS });
    const strangerViolations = await watchContentSecurityPolicy(strangerContext);
    const stranger = await strangerContext.newPage();
    await signIn(stranger, owner, PASSWORD);

    const notice = await readEmail(request, owner, 'New sign-in to your Kegel Coach account');
    expect(notice.text).toContain('Device: Firefox on Windows');
    await page.goto(`/dev/inbox/${notice.id}`);
    await shootBothWidths(page, page, testInfo, 'new-sign-in-mail');
    await page.getByRole('link', { name: "This wasn't me" }).click();

    await expect(page).toHaveURL(/\/account\/sign-in-not-me\?code=/);
    // Opening the link changes nothing (mail scanners open links): the owner confirms.
    await expect(
      page.getByRole('heading', { level: 1, name: 'Was this sign-in not you?' }),
    ).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await shootBothWidths(page, page, testInfo, 'sign-in-not-me');
    await page.getByRole('button', { name: 'Secure my account' }).click();
    await expect(
      page.getByRole('heading', { level: 1, name: 'Every device was signed out' }),
    ).toBeVisible();
    await expect(page.getByText(/We emailed you a link to choose a new one/)).toBeVisible();
    await expect(page.getByRole('banner').getByRole('link', { name: 'Sign In' })).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await shootBothWidths(page, page, testInfo, 'sign-in-not-me-done');

    // The stranger's session is over, and the reset link is in the owner's inbox.
    await stranger.goto('/dashboard/settings');
    await expect(stranger).toHaveURL(/\/auth\/login/);
    await readEmail(request, owner, 'Choose a new password for your Kegel Coach account');
    expect(strangerViolations).toEqual([]);
    await strangerContext.close();
  });
});
