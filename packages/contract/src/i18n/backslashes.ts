// Lingui decodes `\u0041` and `\x41` anywhere in a filled message, so a value typed by a person
// (a passkey named `a\x41`, an address from a link) or a catalog text about a backslash (the
// NUL refusal's `\u0000`) would come out altered. Backslashes travel through Lingui as a
// private-use stand-in instead, put into the catalogs when they are compiled and into values when
// a message is filled, and turned back after.
const BACKSLASH = '\\';
const STAND_IN = '\uE001';

/** A catalog text or a value with its backslashes stood in for. */
export function standInForBackslashes(text: string): string {
  return text.replaceAll(BACKSLASH, STAND_IN);
}

/** The values of a message, each string's backslashes stood in for. */
export function valuesKeepingBackslashes(
  values: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!values) return values;
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => [
      name,
      typeof value === 'string' ? standInForBackslashes(value) : value,
    ]),
  );
}

/** A filled message with its backslashes back. */
export function withBackslashes(text: string): string {
  return text.replaceAll(STAND_IN, BACKSLASH);
}
