// @vitest-environment node
// No page is rendered here: Node alone, without the DOM that the web project sets up.
import { describe, expect, it } from 'vitest';

import { formatLongDate, formatSessionDate, formatShortDate } from './dates';

describe('date formats', () => {
  const instant = '2026-12-23T15:05:00.000Z';

  it('long, for expiry: weekday, month day, year at time', () => {
    expect(formatLongDate(instant, 'UTC')).toBe('Wednesday, December 23, 2026 at 3:05 PM');
  });

  it('session date: month day, year at time', () => {
    expect(formatSessionDate(instant, 'UTC')).toBe('December 23, 2026 at 3:05 PM');
  });

  it('short, in tables: M/D/YY', () => {
    expect(formatShortDate(instant, 'UTC')).toBe('12/23/26');
    expect(formatShortDate('2027-01-05T00:00:00Z', 'UTC')).toBe('1/5/27');
  });

  it("uses the person's time zone", () => {
    expect(formatShortDate('2026-12-31T23:30:00Z', 'America/New_York')).toBe('12/31/26');
    expect(formatShortDate('2026-12-31T23:30:00Z', 'Asia/Tokyo')).toBe('1/1/27');
  });
});
