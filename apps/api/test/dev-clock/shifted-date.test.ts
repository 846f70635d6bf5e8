import { afterEach, describe, expect, it, vi } from 'vitest';

import { isRealDate, setClockOffsetMs } from '../../src/dev-clock/shifted-date';

/** The JavaScript half of the development clock, on its own. */
describe('the shifted Date', () => {
  afterEach(() => {
    setClockOffsetMs(0);
    vi.useRealTimers();
  });

  it("leaves a test's own fake Date in place when a server starts with the clock unmoved", () => {
    // A server reads the stored offset at start (0 on a fresh database): that must not put the
    // real Date back under a test that faked it first (vi.useFakeTimers), or its moves of the
    // clock would silently stop counting.
    vi.useFakeTimers({ toFake: ['Date'] });
    const fake = globalThis.Date;
    setClockOffsetMs(0);
    expect(globalThis.Date).toBe(fake);
  });

  it('shifts now, and puts the real Date back at 0', () => {
    const before = Date.now();
    setClockOffsetMs(86_400_000);
    expect(isRealDate()).toBe(false);
    expect(Date.now() - before).toBeGreaterThanOrEqual(86_400_000);
    expect(new Date(0).toISOString()).toBe('1970-01-01T00:00:00.000Z');
    setClockOffsetMs(0);
    expect(isRealDate()).toBe(true);
  });
});
