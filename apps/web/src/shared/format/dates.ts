// The product's three date formats, in US English and the person's own time zone (tests pass
// one explicitly):
// - long, for expiry: "Wednesday, December 23, 2026 at 10:00 AM"
// - session date: "December 23, 2026 at 10:00 AM"
// - short, in tables: "12/23/26"

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

export function formatLongDate(value: DateInput, timeZone?: string): string {
  return new Intl.DateTimeFormat('en-US', { weekday: 'long', ...DATE_AT_TIME, timeZone }).format(
    toDate(value),
  );
}

export function formatSessionDate(value: DateInput, timeZone?: string): string {
  return new Intl.DateTimeFormat('en-US', { ...DATE_AT_TIME, timeZone }).format(toDate(value));
}

export function formatShortDate(value: DateInput, timeZone?: string): string {
  return new Intl.DateTimeFormat('en-US', {
    month: 'numeric',
    day: 'numeric',
    year: '2-digit',
    timeZone,
  }).format(toDate(value));
}
