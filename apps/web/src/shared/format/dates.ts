// The product's three date formats, in the page's language (or the one given) and the person's
// own time zone (tests pass one explicitly). In English, the spec's US formats exactly:
// - long, for expiry: "Wednesday, December 23, 2026 at 10:00 AM"
// - session date: "December 23, 2026 at 10:00 AM"
// - short, in tables: "12/23/26"
// Spanish and German take Intl's own for the same fields ("Mittwoch, 23. Dezember 2026 um 10:00",
// "23.12.26"; "miércoles, 23 de diciembre de 2026, 10:00", "23/12/26").
import type { PageLocale } from '@kegel/contract/i18n';

import { currentLocale } from '../i18n/i18n';
import { intlLocaleOf } from './intl-locale';

type DateInput = string | Date;

function toDate(value: DateInput): Date {
  return typeof value === 'string' ? new Date(value) : value;
}

const DATE_AT_TIME: Intl.DateTimeFormatOptions = {
  month: 'long',
  day: 'numeric',
  year: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
};

export function formatLongDate(
  value: DateInput,
  timeZone?: string,
  locale: PageLocale = currentLocale(),
): string {
  return new Intl.DateTimeFormat(intlLocaleOf(locale), {
    weekday: 'long',
    ...DATE_AT_TIME,
    timeZone,
  }).format(toDate(value));
}

export function formatSessionDate(
  value: DateInput,
  timeZone?: string,
  locale: PageLocale = currentLocale(),
): string {
  return new Intl.DateTimeFormat(intlLocaleOf(locale), { ...DATE_AT_TIME, timeZone }).format(
    toDate(value),
  );
}

export function formatShortDate(
  value: DateInput,
  timeZone?: string,
  locale: PageLocale = currentLocale(),
): string {
  return new Intl.DateTimeFormat(intlLocaleOf(locale), {
    month: 'numeric',
    day: 'numeric',
    year: '2-digit',
    timeZone,
  }).format(toDate(value));
}
