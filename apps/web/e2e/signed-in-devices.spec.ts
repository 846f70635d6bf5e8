import {
  createUser,
  expect,
  expectNoSeriousA11yViolations,
  screenshotBothWidths,
  signIn,
  test,
  toast,
  uniqueEmail,
} from './support/fixtures';

const PASSWORD = 'correct horse battery';
const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

test('a member signed in on two browsers sees both, signs the other out, and it is sent to login', async ({
  page,
  browser,
  request,
}, testInfo) => {
  const email = uniqueEmail('devices');
  await createUser(request, email, PASSWORD);
  const elsewhere = await browser.newContext({ userAgent: IPHONE_SAFARI });
  const otherPage = await elsewhere.newPage();
  await signIn(otherPage, email, PASSWORD);
  await signIn(page, email, PASSWORD);

  await page.goto('/dashboard/settings');
  const devices = page.getByRole('list', { name: "Where you're signed in" });
  await expect(devices.getByRole('listitem')).toHaveCount(2);
  await expect(devices.getByRole('listitem').filter({ hasText: 'This device' })).toHaveCount(1);
  await expect(devices.getByRole('listitem').filter({ hasText: 'This device' })).toContainText(
    'Chrome on Windows',
  );
  await expect(devices).toContainText('Safari on iOS');
  await expectNoSeriousA11yViolations(page);
  await screenshotBothWidths(page, testInfo, 'settings-devices');

  const other = devices.getByRole('listitem').filter({ hasNotText: 'This device' });
  await other.getByRole('button', { name: /^Sign out/ }).click();
  await expect(toast(page, 'Signed out')).toBeVisible();
  await expect(devices.getByRole('listitem')).toHaveCount(1);

  // The other browser is bounced to the sign-in page at its next call.
  await otherPage.goto('/dashboard/settings');
  await otherPage.waitForURL(/\/auth\/login/);
  await elsewhere.close();
});
