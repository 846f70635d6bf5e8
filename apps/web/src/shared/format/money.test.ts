// @vitest-environment node
// No page is rendered here: Node alone, without the DOM that the web project sets up.
import { describe, expect, it } from 'vitest';

import { formatUsd, formatUsdIn } from './money';

describe('formatUsd', () => {
  it('writes US dollars with two decimals and thousands separators', () => {
    expect([0, 7, 9.99, 2.3, 119.99, 1234].map(formatUsd)).toEqual([
      '$0.00',
      '$7.00',
      '$9.99',
      '$2.30',
      '$119.99',
      '$1,234.00',
    ]);
  });

  it('keeps US dollars in German and Spanish, written as each language writes them', () => {
    // Intl separates amount and sign with a no-break space.
    expect(formatUsdIn(9.99, 'de')).toBe('9,99\u00a0$');
    expect(formatUsdIn(1234, 'de')).toBe('1.234,00\u00a0$');
    expect(formatUsdIn(9.99, 'es')).toBe('9,99\u00a0US$');
    expect(formatUsdIn(9.99, 'en')).toBe('$9.99');
  });

  it("writes English as Intl's en-US does, without making a formatter", () => {
    const intl = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
    const amounts = [0, 0.004, 0.005, 0.015, 1.005, 2.675, 999.995, 1000, 123456.78, 1e9 + 0.01];
    for (let cents = 0; cents < 200_000; cents += 7)
      amounts.push(cents / 100, cents / 100 + 0.0051);
    for (const amount of [...amounts, ...amounts.map((value) => -value).filter(Boolean)]) {
      expect(formatUsdIn(amount, 'en'), String(amount)).toBe(intl.format(amount));
    }
    // The pseudo-locale is English underneath.
    expect(formatUsdIn(1234, 'en-XA')).toBe('$1,234.00');
  });
});
