// The languages the product speaks, and how the one for a person is chosen (README, Languages).
// English is the source: its catalog (catalogs/en.json) holds the spec's texts as they are, and
// every other catalog holds exactly its keys (catalogs.test.ts). Adding a language is its catalog
// file in catalogs/ and its code in SUPPORTED_LOCALES (and its line in catalogs.ts). No zod here:
// every page loads this file, and zod's schemas stay in the pages that validate.
export const SUPPORTED_LOCALES = ['en', 'es', 'de'] as const;
export type Locale = (typeof SUPPORTED_LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

/** Each language by its own name, as the switchers offer it (a German reader looks for "Deutsch"). */
export const LANGUAGE_NAMES: Readonly<Record<Locale, string>> = {
  en: 'English',
  es: 'Español',
  de: 'Deutsch',
};

/**
 * The pseudo-locale: English with accents and a third more length, in brackets, drawn from the
 * English catalog at build time. A text a page shows unbracketed under it did not come from a
 * catalog; a layout that breaks under it breaks in German. Chosen only by the language cookie
 * (or a test); never offered, negotiated or stored.
 */
export const PSEUDO_LOCALE = 'en-XA';
export type PageLocale = Locale | typeof PSEUDO_LOCALE;
export const PAGE_LOCALES: readonly PageLocale[] = [...SUPPORTED_LOCALES, PSEUDO_LOCALE];

/** The visitor's choice from the footer's switcher, kept by the browser for a year. */
export const LOCALE_COOKIE = 'kegel-locale';
export const LOCALE_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (SUPPORTED_LOCALES as readonly string[]).includes(value);
}

export function isPageLocale(value: unknown): value is PageLocale {
  return isLocale(value) || value === PSEUDO_LOCALE;
}

/**
 * The best of our languages for an `Accept-Language` header (RFC 9110): by quality, then by
 * order; `de-AT` matches `de`; `*` or nothing we speak gives English. A header too long to be a
 * browser's is read only as far as its first 50 entries.
 */
export function negotiateLocale(acceptLanguage: string | undefined | null): Locale {
  if (!acceptLanguage) return DEFAULT_LOCALE;
  const wanted = acceptLanguage
    .split(',')
    .slice(0, 50)
    .map((entry, order) => {
      const [tag = '', ...parameters] = entry.trim().split(';');
      const quality = parameters
        .map((parameter) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(parameter)?.[1])
        .find((value) => value !== undefined);
      return {
        tag: tag.trim().toLowerCase(),
        quality: quality === undefined ? 1 : Number(quality),
        order,
      };
    })
    .filter(({ tag, quality }) => tag !== '' && quality > 0)
    .sort((a, b) => b.quality - a.quality || a.order - b.order);
  for (const { tag } of wanted) {
    if (tag === '*') return DEFAULT_LOCALE;
    const language = tag.split('-')[0];
    if (isLocale(language)) return language;
  }
  return DEFAULT_LOCALE;
}

/**
 * The language of a page or a mail: a member's stored choice, else the visitor's cookie, else his
 * browser's `Accept-Language`. The pseudo-locale passes only through the cookie.
 */
export function pickLocale(choices: {
  stored?: string | null;
  cookie?: string | null;
  acceptLanguage?: string | null;
}): PageLocale {
  if (isLocale(choices.stored)) return choices.stored;
  if (isPageLocale(choices.cookie)) return choices.cookie;
  return negotiateLocale(choices.acceptLanguage);
}
