// @vitest-environment node
// No page is rendered here: Node alone, without the DOM that the web project sets up.
import { describe, expect, it } from 'vitest';

import { formatUsd } from './money';

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
});
