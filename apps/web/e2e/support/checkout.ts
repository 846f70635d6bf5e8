// The steps of buying premium in a browser, shared by the money journeys: /purchase, the Stripe
// sandbox's hosted checkout with a test card, and the webhook's effect on the member's profile.
import type { APIRequestContext, Page } from '@playwright/test';

import { formatLongDate } from '../../src/shared/format/dates';
import { expect, profileOf, toast } from './fixtures';

export const SUCCEEDS = '4242 4242 4242 4242';
export const DECLINED = '4000 0000 0000 0002';

/** On /purchase: picks a plan, fills the email if given, and returns the checkout tab. */
export async function startCheckout(page: Page, planName: string, email?: string): Promise<Page> {
  await page.goto('/purchase');
  await page.getByRole('radio', { name: planName, exact: true }).check();
  if (email !== undefined) await page.getByRole('textbox', { name: 'Email' }).fill(email);
  const checkoutTab = page.waitForEvent('popup');
  await page.getByRole('button', { name: 'Pay with Stripe' }).click();
  await expect(toast(page, 'Payment link has been generated')).toBeVisible();
  const tab = await checkoutTab;
  await tab.waitForURL(/\/checkout\/cs_test_\w+$/);
  return tab;
}

/** Fills the sandbox's hosted checkout form with a test card and submits it. */
export async function payWithCard(checkout: Page, card: string): Promise<void> {
  await checkout.getByLabel('Card number').fill(card);
  await checkout.getByLabel('Expiry').fill('12 / 34');
  await checkout.getByLabel('CVC').fill('123');
  await checkout.getByRole('button', { name: /^Pay \$/ }).click();
}

/** Waits until the webhook has moved the member's premium end date away from `previous`. */
export async function waitForNewEndDate(
  page: Page,
  request: APIRequestContext,
  previous: string | null,
): Promise<string> {
  let end: string | null = previous;
  await expect
    .poll(
      async () => {
        end = (await profileOf(page, request)).subscriptionEndDate;
        return end !== previous;
      },
      { timeout: 15_000 },
    )
    .toBe(true);
  return end!;
}

export function activeUntil(end: string | Date): string {
  return `Your premium plan is active and will expire on ${formatLongDate(end, 'UTC')}`;
}
