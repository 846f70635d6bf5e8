import { formatShortDate } from '../src/shared/format/dates';
import {
  activeUntil,
  payWithCard,
  startCheckout,
  SUCCEEDS,
  waitForNewEndDate,
} from './support/checkout';
import {
  createUser,
  expect,
  expectNoSeriousA11yViolations,
  screenshotBothWidths,
  signIn,
  test,
  uniqueEmail,
} from './support/fixtures';

/**
 * A refund made in Stripe (here the sandbox's development page, as an operator would in the
 * dashboard) takes exactly that purchase's days out: the dashboard and Purchase History follow.
 */
const PASSWORD = 'correct horse battery';
const DAY = 24 * 60 * 60 * 1000;

test.use({ timezoneId: 'UTC' });

test('a member buys two passes, one is refunded in Stripe, and his premium shrinks by its days', async ({
  page,
  request,
}, testInfo) => {
  const email = uniqueEmail('refunded');
  await createUser(request, email, PASSWORD);
  await signIn(page, email, PASSWORD);

  const first = await startCheckout(page, '1 Week');
  await payWithCard(first, SUCCEEDS);
  await first.waitForURL(/\/purchase\/complete\?registered=true&/);
  await first.close();
  const afterWeek = await waitForNewEndDate(page, request, null);
  const second = await startCheckout(page, '1 Month');
  // The hosted checkout page is the sandbox's; its development page is beside it.
  const stripeSandbox = new URL(second.url()).origin;
  await payWithCard(second, SUCCEEDS);
  await second.waitForURL(/\/purchase\/complete\?registered=true&/);
  await second.close();
  const afterMonth = await waitForNewEndDate(page, request, afterWeek);
  expect(new Date(afterMonth).getTime() - new Date(afterWeek).getTime()).toBe(30 * DAY);

  // The operator refunds the month in Stripe.
  const stripe = await page.context().newPage();
  await stripe.goto(`${stripeSandbox}/dev`);
  await stripe
    .getByRole('button', {
      name: `Refund $29.99 of Kegel Coach Premium — 1 Month payment of ${email}`,
    })
    .click();
  // Other journeys' payments are listed too: this member's month.
  const refundedRow = stripe
    .getByRole('row')
    .filter({ hasText: email })
    .filter({ hasText: '1 Month' });
  await expect(refundedRow.getByRole('cell').nth(4)).toHaveText('$29.99');
  await expect(refundedRow.getByRole('button')).toHaveCount(0);
  await stripe.close();

  const afterRefund = await waitForNewEndDate(page, request, afterMonth);
  expect(afterRefund).toBe(afterWeek);
  await page.goto('/dashboard');
  await expect(page.getByText(activeUntil(afterWeek))).toBeVisible();

  await page.getByRole('link', { name: 'Purchase History' }).click();
  const active = page.getByRole('table', { name: 'Active Subscriptions' });
  await expect(active.getByRole('row')).toHaveCount(2);
  await expect(active.getByRole('row').nth(1)).toContainText('1 Week');
  const purchases = page.getByRole('table', { name: 'Purchases' });
  await expect(purchases.getByRole('row')).toHaveCount(3);
  const month = purchases.getByRole('row').nth(1);
  await expect(month.getByRole('cell').first()).toHaveText('1 MonthRefunded');
  const week = purchases.getByRole('row').nth(2);
  await expect(week.getByRole('cell').first()).toHaveText('1 Week');
  await expect(week.getByRole('cell').nth(2)).toHaveText(formatShortDate(afterWeek, 'UTC'));
  // The label fits a phone: the table stays inside its frame at 375 px.
  await page.setViewportSize({ width: 375, height: 812 });
  const overflow = await purchases.evaluate(
    (table) => table.scrollWidth - (table.parentElement?.clientWidth ?? 0),
  );
  expect(overflow).toBeLessThanOrEqual(0);
  await expectNoSeriousA11yViolations(page);
  await screenshotBothWidths(page, testInfo, 'history-refunded');
});
