// How a plan reads on screen: the price per week, the billing period label, the duration's name,
// and which plan is preselected. The words are the page's language's (`purchase` texts).
import type { Plan } from '@kegel/contract';
import { DEFAULT_LOCALE, durationNameKey } from '@kegel/contract/i18n';

import { currentLocale } from '../../shared/i18n/i18n';
import { usePurchaseText } from './text';

/** price / days × 7, to the cent (computed in cents, so $9.99 a week stays $9.99). */
export function pricePerWeek(plan: Pick<Plan, 'price' | 'days'>): number {
  const cents = Math.round(plan.price * 100);
  return Math.round((cents * 7) / plan.days) / 100;
}

/** 'weekly' for 7 days, 'monthly' for 30 or 31, 'yearly' for 365, empty otherwise (1 day). */
export function billingPeriodLabel(days: number): string {
  if (days === 7) return usePurchaseText.now('billedWeekly');
  if (days === 30 || days === 31) return usePurchaseText.now('billedMonthly');
  if (days === 365) return usePurchaseText.now('billedYearly');
  return '';
}

/** The name of a duration: 1 Day, 1 Week, 1 Month, 1 Year. */
export function durationName(days: number): string {
  const [key, values] = durationNameKey(days);
  return usePurchaseText.now(key, values);
}

/**
 * A plan's name as the page shows it. The API names plans in English, from its database ("1
 * Month"): English shows that name as it is; another language names the plan by its duration,
 * which reads the same ("1 Monat").
 */
export function planName(plan: Pick<Plan, 'name' | 'days'>): string {
  return currentLocale() === DEFAULT_LOCALE ? plan.name : durationName(plan.days);
}

/** The plan with the most days: preselected and badged 'MOST POPULAR'. */
export function largestPlan(plans: readonly Plan[]): Plan | undefined {
  return plans.reduce<Plan | undefined>(
    (largest, plan) => (!largest || plan.days > largest.days ? plan : largest),
    undefined,
  );
}
