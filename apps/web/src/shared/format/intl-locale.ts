import type { PageLocale } from '@kegel/contract/i18n';

/**
 * The Intl locale a page language formats with. English (and the pseudo-locale, which is English
 * underneath) keeps the spec's US formats exactly; Spanish and German use their own conventions.
 */
export function intlLocaleOf(locale: PageLocale): string {
  if (locale === 'de') return 'de-DE';
  if (locale === 'es') return 'es-ES';
  return 'en-US';
}
