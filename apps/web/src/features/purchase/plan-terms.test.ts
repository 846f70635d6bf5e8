// @vitest-environment node
// No page is rendered here: Node alone, without the DOM that the web project sets up.
import { describe, expect, it } from 'vitest';

import { billingPeriodLabel, durationName, largestPlan, pricePerWeek } from './plan-terms';

const plan = (id: string, days: number, price: number) => ({ id, name: id, days, price });

describe('plan terms', () => {
  it('prices a plan per week: price / days × 7, two decimals', () => {
    expect(pricePerWeek(plan('1-day', 1, 2.99))).toBe(20.93);
    expect(pricePerWeek(plan('1-week', 7, 9.99))).toBe(9.99);
    expect(pricePerWeek(plan('1-month', 30, 29.99))).toBe(7);
    expect(pricePerWeek(plan('1-year', 365, 119.99))).toBe(2.3);
    expect(pricePerWeek(plan('31-days', 31, 29.99))).toBe(6.77);
  });

  it('labels the billing period, empty for one day', () => {
    expect([1, 7, 30, 31, 365, 90].map(billingPeriodLabel)).toEqual([
      '',
      'weekly',
      'monthly',
      'monthly',
      'yearly',
      '',
    ]);
  });

  it('names durations', () => {
    expect([1, 7, 30, 31, 365, 90].map(durationName)).toEqual([
      '1 Day',
      '1 Week',
      '1 Month',
      '1 Month',
      '1 Year',
      '90 Days',
    ]);
  });

  it('preselects the plan with the most days, wherever it is in the list', () => {
    const plans = [plan('a', 7, 1), plan('b', 365, 1), plan('c', 30, 1)];
    expect(largestPlan(plans)?.id).toBe('b');
    expect(largestPlan([])).toBeUndefined();
  });
});
