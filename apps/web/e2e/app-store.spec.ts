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
 * A member subscribes in the iPhone app (here the App Store sandbox's page, which signs and
 * delivers what Apple would): the web shows his premium, the Apple row and its tooltip; a refund
 * in the App Store takes the premium away.
 */
const PASSWORD = 'correct horse battery';

test.use({ timezoneId: 'UTC' });

test('a member subscribes in the App Store; the web shows it; an App Store refund takes it away', async ({
  page,
  request,
}, testInfo) => {
  const email = uniqueEmail('iphone');
  await createUser(request, email, PASSWORD);
  await signIn(page, email, PASSWORD);
  await expect(page.getByText(/^Your premium plan is active/)).toHaveCount(0);

  const appStore = await page.context().newPage();
  await appStore.goto('/dev/app-store');
  await expect(
    appStore.getByRole('heading', { name: 'App Store sandbox — subscriptions' }),
  ).toBeVisible();
  await appStore.getByLabel('Member email').fill(email);
  await appStore.getByLabel('Product').selectOption('premium.month');
  await appStore.getByRole('button', { name: 'Subscribe' }).click();
  await expect(appStore.getByRole('row').filter({ hasText: email })).toContainText('1 Month');

  // The notification reaches the server: premium until the period's end.
  let end: string | null = null;
  await expect
    .poll(async () => (end = (await profileOf(page, request)).subscriptionEndDate), {
      timeout: 15_000,
    })
    .not.toBeNull();
  await page.goto('/dashboard');
  await expect(
    page.getByText(`Your premium plan is active and will expire on ${formatLongDate(end!, 'UTC')}`),
  ).toBeVisible();

  await page.getByRole('link', { name: 'Purchase History' }).click();
  const active = page.getByRole('table', { name: 'Active Subscriptions' });
  await expect(active.getByRole('row').nth(1)).toContainText('1 MonthApple');
  await expect(page.getByRole('button', { name: 'Manage Subscription' })).toHaveCount(0);
  await expect(
    page.getByText('Manage it in the App Store: Settings → your name → Subscriptions.'),
  ).toBeVisible();
  await active.getByRole('button', { name: 'How to manage this subscription' }).focus();
  await expect(page.getByRole('tooltip')).toHaveText(
    'You have an Apple subscription activated and you can manage it in your personal AppStore account',
  );
  await expectNoSeriousA11yViolations(page);
  await screenshotBothWidths(page, testInfo, 'history-app-store');

  // Apple refunds it.
  // Exactly: "Ask Apple for a refund …" (a refund request, not a refund) is beside it.
  await appStore
    .getByRole('button', { name: `Refund 1 Month subscription of ${email}`, exact: true })
    .click();
  await expect
    .poll(async () => (await profileOf(page, request)).subscriptionEndDate, { timeout: 15_000 })
    .toBeNull();
  await appStore.close();
  await page.goto('/dashboard/history');
  await expect(page.getByRole('table', { name: 'Active Subscriptions' })).toHaveCount(0);
  await expect(
    page
      .getByRole('table', { name: 'Purchases' })
      .getByRole('row')
      .nth(1)
      .getByRole('cell')
      .first(),
  ).toHaveText('1 MonthRefunded');
});
