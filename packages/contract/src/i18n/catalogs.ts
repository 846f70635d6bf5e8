// Every catalog, compiled, for the server (API messages and mails) and for tests. The web app
// never imports this file: its build compiles one namespace at a time into the page that needs it
// (apps/web/scripts/catalog-modules.ts). A language in SUPPORTED_LOCALES without its line here
// does not compile. Its imports name their extensions: the web's Vite configuration loads this
// file (scripts/catalog-modules.ts), as Node would.
import { type Messages, setupI18n } from '@lingui/core';
import { compileMessage } from '@lingui/message-utils/compileMessage';

import de from '../../catalogs/de.json' with { type: 'json' };
import en from '../../catalogs/en.json' with { type: 'json' };
import es from '../../catalogs/es.json' with { type: 'json' };
import { standInForBackslashes, valuesKeepingBackslashes, withBackslashes } from './backslashes.ts';
import { type Locale, type PageLocale, PSEUDO_LOCALE } from './locales.ts';
import { pseudoLocalize } from './pseudo.ts';

/** A catalog: namespaces of keyed ICU messages, English being the source of every key. */
export type Catalog = { readonly [Namespace in keyof typeof en]: Record<string, string> };
export type Namespace = keyof typeof en;
export type MessageKey<N extends Namespace> = keyof (typeof en)[N] & string;

export const CATALOGS: Readonly<Record<Locale, Catalog>> = { en, es, de };

/** The catalog of `locale`, the pseudo-locale's drawn from English. */
export function catalogOf(locale: PageLocale): Catalog {
  return locale === PSEUDO_LOCALE ? CATALOGS.en : CATALOGS[locale];
}

/** One namespace of a catalog as compiled Lingui messages, by id `<namespace>.<key>`. */
export function compileNamespace(
  locale: PageLocale,
  namespace: string,
  catalog: Catalog = catalogOf(locale),
): Messages {
  const texts = (catalog as Record<string, Record<string, string>>)[namespace] ?? {};
  const mapText = locale === PSEUDO_LOCALE ? pseudoLocalize : undefined;
  return Object.fromEntries(
    Object.entries(texts).map(([key, text]) => [
      `${namespace}.${key}`,
      // Before compiling: the message parser itself takes a backslash as an escape.
      compileMessage(standInForBackslashes(text), mapText),
    ]),
  );
}

export type Translate = <N extends Namespace>(
  namespace: N,
  key: MessageKey<N>,
  values?: Record<string, unknown>,
) => string;

const translators = new Map<PageLocale, Translate>();

/** Texts in `locale`, from every namespace; compiled once per language. */
export function translatorFor(locale: PageLocale): Translate {
  let translate = translators.get(locale);
  if (!translate) {
    const i18n = setupI18n();
    const messages = Object.assign(
      {},
      ...Object.keys(en).map((namespace) => compileNamespace(locale, namespace)),
    ) as Messages;
    i18n.loadAndActivate({ locale, messages });
    translate = (namespace, key, values) =>
      withBackslashes(i18n._(`${namespace}.${key}`, valuesKeepingBackslashes(values)));
    translators.set(locale, translate);
  }
  return translate;
}

let keysOfEnglishMessages: Map<string, string> | undefined;

/**
 * An answer's `message` (one of the contract's English texts: messages.ts, the field rules) in
 * `locale`. A text with no entry in the catalogs' `messages` namespace stays English: a test holds
 * every text of the contract to one (catalogs.test.ts).
 */
export function translateMessage(text: string, locale: PageLocale): string {
  if (locale === 'en') return text;
  keysOfEnglishMessages ??= new Map(
    Object.entries(en.messages as Record<string, string>).map(([key, english]) => [english, key]),
  );
  const key = keysOfEnglishMessages.get(text);
  return key === undefined ? text : translatorFor(locale)('messages', key as never);
}
