// Money is in US dollars in every language, two decimals, written as the page's language writes
// it: "$9.99" and "$1,234.00" in English (the spec's), "9,99 $" in German, "9,99 US$" in Spanish.
import type { PageLocale } from '@kegel/contract/i18n';

import { currentLocale } from '../i18n/i18n';
import { intlLocaleOf } from './intl-locale';

const USD = { style: 'currency', currency: 'USD' } as const;

/** One formatter per language, made the first time that language shows a price. */
const usDollarsIn = new Map<PageLocale, Intl.NumberFormat>();

/** `amount` dollars in the page's language (`formatUsdIn` for another). */
export function formatUsd(amount: number): string {
  return formatUsdIn(amount, currentLocale());
}

export function formatUsdIn(amount: number, locale: PageLocale): string {
  if (intlLocaleOf(locale) === 'en-US') return usDollarsInEnglish(amount);
  let format = usDollarsIn.get(locale);
  if (!format) {
    format = new Intl.NumberFormat(intlLocaleOf(locale), USD);
    usDollarsIn.set(locale, format);
  }
  return format.format(amount);
}

/**
 * The spec's English format, written out rather than by Intl: the first Intl.NumberFormat of a
 * page loads the browser's locale data, 62 ms of /purchase's main thread at Lighthouse's 4 x
 * slower CPU, in the task that draws the plans (issue 30). The same text as Intl's en-US (a test
 * compares them over many amounts): like V8's Intl, it rounds the number as it is written in
 * decimal (0.015 to 0.02, half away from zero), not its binary value.
 */
function usDollarsInEnglish(amount: number): string {
  const written = String(Math.abs(amount));
  // Exponents (below a millionth, or beyond 10^21) are no price: Intl writes those.
  if (written.includes('e')) return new Intl.NumberFormat('en-US', USD).format(amount);
  const [whole = '0', fraction = ''] = written.split('.');
  const digits = fraction.padEnd(3, '0');
  const roundsUp = Number(digits[2]) >= 5;
  const inCents = BigInt(whole + digits.slice(0, 2)) + (roundsUp ? 1n : 0n);
  const dollars = (inCents / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const cents = (inCents % 100n).toString().padStart(2, '0');
  return `${amount < 0 ? '-' : ''}$${dollars}.${cents}`;
}
