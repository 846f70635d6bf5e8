// The app's languages at run time (README, Languages). Each feature's texts are a namespace of the
// catalogs, imported where they are used (`virtual:catalog/<namespace>`, scripts/catalog-
// modules.ts): its English comes with the page's code, and another language's messages are
// fetched before the page first draws (`loadCatalogs`, awaited by the router's lazy pages and by
// main.tsx before it takes over a prerendered page), so no page shows English first.
import { i18n, type Messages } from '@lingui/core';
import {
  DEFAULT_LOCALE,
  isPageLocale,
  LOCALE_COOKIE,
  LOCALE_COOKIE_MAX_AGE_SECONDS,
  type PageLocale,
} from '@kegel/contract/i18n';

import { translate } from './translate';

export { i18n };

export interface NamespaceModule {
  namespace: string;
  english: Messages;
  loaders: Readonly<Record<string, () => Promise<{ default: Messages }>>>;
}

const namespaces = new Map<string, NamespaceModule>();
/** `<locale>/<namespace>` of every catalog part loaded so far. */
const loaded = new Set<string>();

i18n.loadAndActivate({ locale: DEFAULT_LOCALE, messages: {} });

/** Makes a namespace's texts known: English at once, the others when `loadCatalogs` asks. */
export function registerNamespace(module: NamespaceModule): void {
  if (namespaces.has(module.namespace)) return;
  namespaces.set(module.namespace, module);
  i18n.load(DEFAULT_LOCALE, module.english);
  loaded.add(`${DEFAULT_LOCALE}/${module.namespace}`);
}

/** Fetches the messages in `locale` of every namespace known so far that it lacks. */
export async function loadCatalogs(locale: PageLocale = currentLocale()): Promise<void> {
  await Promise.all(
    [...namespaces.values()]
      .filter(({ namespace }) => !loaded.has(`${locale}/${namespace}`))
      .map(async ({ namespace, loaders }) => {
        const load = loaders[locale];
        if (!load) return;
        i18n.load(locale, (await load()).default);
        loaded.add(`${locale}/${namespace}`);
      }),
  );
}

/** Shows the app in `locale`, once its messages are here. */
export async function switchLocale(locale: PageLocale): Promise<void> {
  await loadCatalogs(locale);
  i18n.activate(locale);
  if (typeof document !== 'undefined') document.documentElement.lang = locale;
}

export function currentLocale(): PageLocale {
  return isPageLocale(i18n.locale) ? i18n.locale : DEFAULT_LOCALE;
}

/** The language the server drew this page in (`<html lang>`, plugins/web-app.ts in the API). */
export function localeOfThisPage(): PageLocale {
  const lang = typeof document === 'undefined' ? '' : document.documentElement.lang;
  return isPageLocale(lang) ? lang : DEFAULT_LOCALE;
}

/** Keeps a visitor's choice for the server, which draws his next page in it. */
export function rememberLocaleChoice(locale: PageLocale): void {
  document.cookie = `${LOCALE_COOKIE}=${locale}; path=/; max-age=${LOCALE_COOKIE_MAX_AGE_SECONDS}; samesite=lax`;
}

/**
 * One of the contract's English texts (a field rule, a refusal the app words itself) in the page's
 * language: the `messages` namespace, which the build keys by the English it translates
 * (scripts/catalog-modules.ts). The API answers its own in the page's language already.
 */
export function localizeMessage(text: string): string {
  // Own keys only: `constructor` or `__proto__` (an error's message) is no message id.
  return Object.hasOwn(i18n.messages, text) ? translate(i18n, text) : text;
}
