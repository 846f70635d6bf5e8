import { formatLongDate } from '../src/shared/format/dates';
import {
  createUser,
  expect,
  expectNoSeriousA11yViolations,
  profileOf,
  screenshotBothWidths,
  signIn,
  test,
  uniqueEmail,
} from './support/fixtures';

/**
 * "I bought on my iPhone": a member subscribes in the iPhone app while signed out of it (the App
 * Store sandbox's page, no appAccountToken), so the web knows nothing of it; he types the order
 * id of Apple's receipt email on Purchase History and the purchase is his. Another member who
 * types the same id is sent to support.
 */
const PASSWORD = 'correct horse battery';

test.use({ timezoneId: 'UTC' });

test('a member claims his iPhone purchase by its order id on Purchase History', async ({
  page,
  browser,
  request,
}, testInfo) => {
  const email = uniqueEmail('claimer');
  await createUser(request, email, PASSWORD);
  await signIn(page, email, PASSWORD);

  const appStore = await page.context().newPage();
  await appStore.goto('/dev/app-store');
  await appStore.getByLabel('Member email').fill(email);
  await appStore.getByLabel('Product').selectOption('premium.month');
  await appStore.getByLabel(/Bought while signed out of the app/).check();
  await appStore.getByRole('button', { name: 'Subscribe' }).click();
  const row = appStore.getByRole('row').filter({ hasText: email });
  await expect(row).toContainText('1 Month');
  const orderId = (await row.getByRole('cell').nth(5).textContent())?.trim() ?? '';
  expect(orderId).toMatch(/^[A-Z0-9]{10,12}$/);
  await appStore.close();

  await page.goto('/dashboard/history');
  await expect(page.getByText("You don't have any purchases yet")).toBeVisible();
  const field = page.getByRole('textbox', { name: 'Order ID' });
  await expect(field).toHaveAccessibleDescription(
    'Find it in the receipt email Apple sent you, e.g. MK5TTTVWJH',
  );
  await expectNoSeriousA11yViolations(page);
  await screenshotBothWidths(page, testInfo, 'history-claim-form');

  // Typed as people type it: lower case.
  await field.fill(orderId.toLowerCase());
  await page.getByRole('button', { name: 'Claim purchase' }).click();
  await expect(page.getByRole('status')).toContainText('Purchase claimed.');
  const end = (await profileOf(page, request)).subscriptionEndDate;
  expect(end).not.toBeNull();
  await expect(page.getByRole('status')).toHaveText(
    `Purchase claimed. Your premium now ends on ${formatLongDate(end!, 'UTC')}.`,
  );
  await expect(
    page.getByText(`Your premium plan is active and will expire on ${formatLongDate(end!, 'UTC')}`),
  ).toBeVisible();
  await expect(
    page.getByRole('table', { name: 'Active Subscriptions' }).getByRole('row').nth(1),
  ).toContainText('1 MonthApple');
  await expectNoSeriousA11yViolations(page);
  await screenshotBothWidths(page, testInfo, 'history-claimed');

  // Another member with the same receipt: the purchase stays where it is.
  const otherEmail = uniqueEmail('other-claimer');
  await createUser(request, otherEmail, PASSWORD);
  const otherContext = await browser.newContext();
  const other = await otherContext.newPage();
  await signIn(other, otherEmail, PASSWORD);
  await other.goto('/dashboard/history');
  await other.getByRole('textbox', { name: 'Order ID' }).fill(orderId);
  await other.getByRole('button', { name: 'Claim purchase' }).click();
  await expect(
    other.getByText(
      /^This App Store purchase belongs to another account\. Please contact support at \S+@\S+\.$/,
    ),
  ).toBeVisible();
  await expect(other.getByRole('textbox', { name: 'Order ID' })).toBeFocused();
  await expect(other.getByText("You don't have any purchases yet")).toBeVisible();
  await screenshotBothWidths(other, testInfo, 'history-claim-refused');
  await otherContext.close();
});
