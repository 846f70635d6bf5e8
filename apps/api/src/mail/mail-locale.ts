// The language of a mail: its recipient's stored choice (users.locale), English for an account
// that never chose (older than languages) or holds a code no longer spoken.
import { DEFAULT_LOCALE, isLocale, type Locale } from '@kegel/contract/i18n';

export function mailLocaleOf(recipient: { locale: string | null }): Locale {
  return isLocale(recipient.locale) ? recipient.locale : DEFAULT_LOCALE;
}
