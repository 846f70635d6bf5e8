import { describe, expect, it } from 'vitest';

import {
  formatMoney as formatMoneyAsShown,
  fromMinorUnits,
  milliunitsFromMinorUnits,
  minorUnitDigits,
  minorUnitsFromMilliunits,
  toMinorUnits,
} from './index';

describe('money in minor units of its currency', () => {
  it('knows the decimals of zero-, two- and three-decimal currencies, in either case', () => {
    expect(['jpy', 'KRW', 'usd', 'EUR', 'bhd', 'KWD'].map(minorUnitDigits)).toEqual([
      0, 0, 2, 2, 3, 3,
    ]);
  });

  it('shows amounts as a person reads them', () => {
    // Intl puts a no-break space between a code and the number.
    const formatMoney = (amount: number, currency: string) =>
      formatMoneyAsShown(amount, currency).replaceAll('\u00a0', ' ');
    expect(formatMoney(999, 'usd')).toBe('$9.99');
    expect(formatMoney(1200, 'jpy')).toBe('¥1,200');
    expect(formatMoney(9900, 'krw')).toBe('₩9,900');
    expect(formatMoney(1500, 'bhd')).toBe('BHD 1.500');
    expect(formatMoney(2750, 'kwd')).toBe('KWD 2.750');
    expect(formatMoney(999, 'x1')).toBe('9.99 X1');
  });

  it('converts between minor units, whole units and Apple milliunits', () => {
    expect(fromMinorUnits(999, 'usd')).toBe(9.99);
    expect(fromMinorUnits(1200, 'jpy')).toBe(1200);
    expect(fromMinorUnits(1500, 'bhd')).toBe(1.5);
    expect(toMinorUnits(4.99, 'usd')).toBe(499);
    expect(toMinorUnits(500, 'jpy')).toBe(500);
    expect(toMinorUnits(1.25, 'kwd')).toBe(1250);
    expect(minorUnitsFromMilliunits(9990, 'USD')).toBe(999);
    expect(minorUnitsFromMilliunits(1200000, 'JPY')).toBe(1200);
    expect(minorUnitsFromMilliunits(2750, 'KWD')).toBe(2750);
    expect(milliunitsFromMinorUnits(999, 'usd')).toBe(9990);
    expect(milliunitsFromMinorUnits(1200, 'jpy')).toBe(1200000);
  });
});
