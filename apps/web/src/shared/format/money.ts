// Money is in US dollars in every language, two decimals, written as the page's language writes
// it: "$9.99" and "$1,234.00" in English (the spec's), "9,99 $" in German, "9,99 US$" in Spanish.
import type { PageLocale } from '@kegel/contract/i18n';

import { currentLocale } from '../i18n/i18n';
import { intlLocaleOf } from './intl-locale';

/** One formatter per language, made the first time that language shows a price. */
const usDollarsIn = new Map<PageLocale, Intl.NumberFormat>();

/** `amount` dollars in the page's language (`formatUsdIn` for another). */
export function formatUsd(amount: number): string {
  return formatUsdIn(amount, currentLocale());
}

export function formatUsdIn(amount: number, locale: PageLocale): string {
  let format = usDollarsIn.get(locale);
  if (!format) {
    format = new Intl.NumberFormat(intlLocaleOf(locale), { style: 'currency', currency: 'USD' });
    usDollarsIn.set(locale, format);
  }
  return format.format(amount);
}
