import { describe, expect, it } from 'vitest';

import { isRunningPurchase } from './users';

describe('a running purchase', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');

  it('is one whose days are not over and that was not refunded', () => {
    expect(isRunningPurchase({ expiresAt: '2026-11-26T00:00:00.000Z' }, now)).toBe(true);
  });

  it('is over at its end, to the millisecond', () => {
    expect(isRunningPurchase({ expiresAt: '2026-11-25T12:00:00.000Z' }, now)).toBe(false);
    expect(isRunningPurchase({ expiresAt: '2026-11-25T12:00:00.001Z' }, now)).toBe(true);
  });

  it('counts for nothing once refunded, whatever its end', () => {
    expect(
      isRunningPurchase(
        { expiresAt: '2027-01-01T00:00:00.000Z', refundedAt: '2026-11-20T00:00:00.000Z' },
        now,
      ),
    ).toBe(false);
  });
});
