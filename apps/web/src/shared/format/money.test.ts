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
});
