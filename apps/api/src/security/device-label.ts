// A readable name for the device a session began on ("Chrome on macOS"), from its User-Agent,
// for "Where you're signed in". Parsed once at sign-in with bowser, a maintained parser, and kept
// in that form ("<browser> on <system>"); `deviceLabelIn` words a kept label in a reader's
// language (the `records` texts).
import { DEFAULT_LOCALE, type PageLocale } from '@kegel/contract/i18n';
import { translatorFor } from '@kegel/contract/i18n/catalogs';
import Bowser from 'bowser';

/** The label kept when the User-Agent names nothing bowser knows (rows hold it as it is). */
export const UNKNOWN_DEVICE = 'Unknown device';

export function deviceLabel(userAgent: string | undefined): string {
  if (!userAgent) return UNKNOWN_DEVICE;
  const { browser, os } = Bowser.parse(userAgent);
  const system = os.name;
  if (browser.name && system) return `${browser.name} on ${system}`;
  return browser.name ?? system ?? UNKNOWN_DEVICE;
}

/** "Browser on System" as `deviceLabel` keeps it: neither name bowser knows holds " on ". */
const KEPT_LABEL = /^(.+) on (.+)$/;

/**
 * A kept label in `locale`: "Chrome unter Linux", "Dispositivo desconocido". The browser's and the
 * system's names are names, as bowser gives them; a label kept otherwise stays as it is.
 */
export function deviceLabelIn(locale: PageLocale, label: string | null): string {
  const translate = translatorFor(locale);
  if (label === null || label === UNKNOWN_DEVICE) return translate('records', 'unknownDevice');
  if (locale === DEFAULT_LOCALE) return label;
  const kept = KEPT_LABEL.exec(label);
  return kept ? translate('records', 'deviceOn', { browser: kept[1], os: kept[2] }) : label;
}
