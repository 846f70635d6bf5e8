// How a plan reads on screen: the price per week, the billing period label, the duration's name,
// and which plan is preselected.
import type { Plan } from '@kegel/contract';

/** price / days × 7, to the cent (computed in cents, so $9.99 a week stays $9.99). */
export function pricePerWeek(plan: Pick<Plan, 'price' | 'days'>): number {
  const cents = Math.round(plan.price * 100);
  return Math.round((cents * 7) / plan.days) / 100;
}

/** 'weekly' for 7 days, 'monthly' for 30 or 31, 'yearly' for 365, empty otherwise (1 day). */
export function billingPeriodLabel(days: number): string {
  if (days === 7) return 'weekly';
  if (days === 30 || days === 31) return 'monthly';
  if (days === 365) return 'yearly';
  return '';
}

/** The name of a duration: 1 Day, 1 Week, 1 Month, 1 Year. */
export function durationName(days: number): string {
  if (days === 1) return '1 Day';
  if (days === 7) return '1 Week';
  if (days === 30 || days === 31) return '1 Month';
  if (days === 365) return '1 Year';
  return `${days} Days`;
}

/** The plan with the most days: preselected and badged 'MOST POPULAR'. */
export function largestPlan(plans: readonly Plan[]): Plan | undefined {
  return plans.reduce<Plan | undefined>(
    (largest, plan) => (!largest || plan.days > largest.days ? plan : largest),
    undefined,
  );
}
