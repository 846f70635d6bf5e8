// A Vite plugin: the catalogs (packages/contract/catalogs/<locale>.json) compiled one namespace at
// a time, so a page carries only its own texts. `import * as auth from 'virtual:catalog/auth'`
// gives the namespace's English messages, compiled (in the importing page's own chunk: English
// needs no request of its own), and a loader per other language (and the pseudo-locale), each a
// chunk of its own fetched only by a reader of that language. Messages are compiled here, at
// build time (Lingui's compileMessage), so no message parser reaches the browser.
import path from 'node:path';

import type { Messages } from '@lingui/core';
import type { Plugin } from 'vite';

import { catalogOf, compileNamespace } from '../../../packages/contract/src/i18n/catalogs.ts';
import { PAGE_LOCALES, type PageLocale } from '../../../packages/contract/src/i18n/locales.ts';

const PREFIX = 'virtual:catalog/';
const RESOLVED_PREFIX = '\0catalog/';
const CATALOGS_FOLDER = path.resolve(import.meta.dirname, '../../../packages/contract/catalogs');

/** The namespaces no page may load: the server's alone (mails, the desk's timeline lines, what it
 * words from its records: purchase names, devices). */
const SERVER_ONLY_NAMESPACES = new Set(['mail', 'timeline', 'records']);

/**
 * The contract's texts (`messages`: field rules, the API's refusals). A page holds them in English
 * already, from the contract's own modules, so English adds nothing, and each other language's
 * messages are keyed by the English text they translate: `localizeMessage(text)`
 * (shared/i18n/i18n.ts) looks a text up as it is.
 */
const KEYED_BY_ENGLISH = new Set(['messages']);

function translationsKeyedByEnglish(locale: PageLocale, namespace: string): Messages {
  const english = (catalogOf('en') as Record<string, Record<string, string>>)[namespace] ?? {};
  const translated = compileNamespace(locale, namespace);
  return Object.fromEntries(
    Object.entries(english).map(([key, text]) => [text, translated[`${namespace}.${key}`] ?? text]),
  );
}

export function catalogModules(): Plugin {
  return {
    name: 'kegel:catalog-modules',
    resolveId(source) {
      return source.startsWith(PREFIX) ? RESOLVED_PREFIX + source.slice(PREFIX.length) : null;
    },
    load(id) {
      if (!id.startsWith(RESOLVED_PREFIX)) return null;
      const [namespace = '', locale] = id.slice(RESOLVED_PREFIX.length).split('/');
      if (SERVER_ONLY_NAMESPACES.has(namespace)) {
        throw new Error(`the "${namespace}" catalog namespace is the server's; no page loads it`);
      }
      for (const catalogLocale of PAGE_LOCALES) {
        if (catalogLocale !== 'en-XA') {
          this.addWatchFile(path.join(CATALOGS_FOLDER, `${catalogLocale}.json`));
        }
      }
      if (locale !== undefined) {
        if (!PAGE_LOCALES.includes(locale as never)) throw new Error(`no catalog for ${locale}`);
        const messages = KEYED_BY_ENGLISH.has(namespace)
          ? translationsKeyedByEnglish(locale as PageLocale, namespace)
          : compileNamespace(locale as PageLocale, namespace);
        return `export default ${JSON.stringify(messages)};`;
      }
      let english = compileNamespace('en', namespace);
      if (Object.keys(english).length === 0) {
        throw new Error(`the English catalog has no "${namespace}" namespace`);
      }
      if (KEYED_BY_ENGLISH.has(namespace)) english = {};
      const loaders = PAGE_LOCALES.filter((other) => other !== 'en').map(
        (other) => `${JSON.stringify(other)}: () => import("${PREFIX}${namespace}/${other}")`,
      );
      return [
        `export const namespace = ${JSON.stringify(namespace)};`,
        `export const english = ${JSON.stringify(english)};`,
        `export const loaders = {${loaders.join(',')}};`,
      ].join('\n');
    },
  };
}
