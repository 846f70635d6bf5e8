// A purchase's name as a member reads it, in his language. The database keeps each purchase's
// name in English as it was recorded ("1 Month", "Granted by support: 7 days, service outage"),
// which English shows as it is. Another language words the same thing from what the name was
// made of: a plan by its days, a support grant by its days and reason (kept as typed). A name
// made otherwise (a plan renamed by hand, an App Store product id) stays as recorded.
import { DEFAULT_LOCALE, durationNameKey, type PageLocale } from '@kegel/contract/i18n';
import { translatorFor } from '@kegel/contract/i18n/catalogs';

export interface NamedPurchase {
  planName: string;
  provider: string;
  days: number;
  /** The support desk's grant behind a purchase of provider 'Support', when there is one. */
  grant: { days: number; reason: string } | null;
}

/** The name a support grant is recorded under: "Granted by support: 7 days, service outage". */
export function supportGrantName(
  days: number,
  reason: string,
  locale: PageLocale = DEFAULT_LOCALE,
): string {
  return translatorFor(locale)('records', 'grantedBySupportFor', { days, reason });
}

/** The purchase's name in `locale`. */
export function purchaseNameIn(locale: PageLocale, purchase: NamedPurchase): string {
  if (locale === DEFAULT_LOCALE) return purchase.planName;
  const { grant } = purchase;
  if (
    purchase.provider === 'Support' &&
    grant &&
    purchase.planName === supportGrantName(grant.days, grant.reason)
  ) {
    return supportGrantName(grant.days, grant.reason, locale);
  }
  const [key, values] = durationNameKey(purchase.days);
  if (purchase.planName === translatorFor(DEFAULT_LOCALE)('purchase', key, values)) {
    return translatorFor(locale)('purchase', key, values);
  }
  return purchase.planName;
}
