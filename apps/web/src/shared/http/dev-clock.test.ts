import { afterEach, describe, expect, it } from 'vitest';

import { followServerClock } from './dev-clock';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('followServerClock', () => {
  afterEach(() => followServerClock(''));

  it("moves the page's now by the server's offset, with real dates, and back without the cookie", () => {
    const RealDate = Date;
    followServerClock('theme=dark; kegel_dev_clock_ms=172800000');
    expect(Date.now() - RealDate.now()).toBeGreaterThanOrEqual(2 * DAY_MS - 1000);
    expect(new Date().getTime() - RealDate.now()).toBeGreaterThanOrEqual(2 * DAY_MS - 1000);
    expect(new Date()).toBeInstanceOf(RealDate);
    expect(new Date('2030-01-02T00:00:00Z').toISOString()).toBe('2030-01-02T00:00:00.000Z');
    followServerClock('theme=dark');
    expect(Date).toBe(RealDate);
    expect(Math.abs(Date.now() - RealDate.now())).toBeLessThan(1000);
  });
});
