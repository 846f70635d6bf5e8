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

  it('in German and Spanish, each language writes the same fields its own way', () => {
    expect(formatLongDate(instant, 'UTC', 'de')).toBe('Mittwoch, 23. Dezember 2026 um 15:05');
    expect(formatSessionDate(instant, 'UTC', 'de')).toBe('23. Dezember 2026 um 15:05');
    expect(formatShortDate(instant, 'UTC', 'de')).toBe('23.12.26');
    expect(formatLongDate(instant, 'UTC', 'es')).toBe('miércoles, 23 de diciembre de 2026, 15:05');
    expect(formatSessionDate(instant, 'UTC', 'es')).toBe('23 de diciembre de 2026 a las 15:05');
    expect(formatShortDate(instant, 'UTC', 'es')).toBe('23/12/26');
  });

  it('writes the pseudo-locale as English', () => {
    expect(formatShortDate(instant, 'UTC', 'en-XA')).toBe('12/23/26');
  });
});
