// Every catalog holds exactly English's keys, each message with English's placeholders and tags,
// and every text the contract answers with has its entry (so the API can answer it translated).
import { compileMessageOrThrow } from '@lingui/message-utils/compileMessage';
import { describe, expect, it } from 'vitest';

import * as contract from '../index';
import { CATALOGS, type Catalog, translateMessage, translatorFor } from './catalogs';
import { negotiateLocale, pickLocale, SUPPORTED_LOCALES } from './locales';
import { pseudoLocalize } from './pseudo';

function keysOf(catalog: Catalog): string[] {
  return Object.entries(catalog as Record<string, Record<string, string>>).flatMap(
    ([namespace, texts]) => Object.keys(texts).map((key) => `${namespace}.${key}`),
  );
}

function textOf(catalog: Catalog, id: string): string {
  const [namespace = '', ...rest] = id.split('.');
  return (catalog as Record<string, Record<string, string>>)[namespace]?.[rest.join('.')] ?? '';
}

/** The `{names}` and `<tags>` of an ICU message: what code fills in, which no translation may drop. */
function slotsOf(message: string): string[] {
  const names = [...message.matchAll(/\{\s*([A-Za-z0-9_]+)\s*[,}]/g)].map(
    (match) => `{${match[1]}}`,
  );
  const tags = [...message.matchAll(/<\/?([A-Za-z0-9_]+)\s*\/?>/g)].map((match) => `<${match[1]}>`);
  return [...new Set([...names, ...tags])].sort();
}

const english = CATALOGS.en;

describe('catalogs', () => {
  it.each(SUPPORTED_LOCALES.filter((locale) => locale !== 'en'))(
    '%s has every key of English and no other',
    (locale) => {
      const keys = keysOf(CATALOGS[locale]);
      expect(keys.filter((key) => !keysOf(english).includes(key))).toEqual([]);
      expect(keysOf(english).filter((key) => !keys.includes(key))).toEqual([]);
    },
  );

  it.each(SUPPORTED_LOCALES)(
    '%s: every message parses and keeps English placeholders',
    (locale) => {
      for (const id of keysOf(english)) {
        const text = textOf(CATALOGS[locale], id);
        expect(() => compileMessageOrThrow(text), id).not.toThrow();
        expect(text.trim(), `${locale} ${id} is empty`).not.toBe('');
        expect(slotsOf(text), `${locale} ${id}`).toEqual(slotsOf(textOf(english, id)));
      }
    },
  );

  it("holds every one of the contract's answered texts, as the contract writes it", () => {
    const answered = Object.entries(contract)
      .filter(([name, value]) => name.endsWith('Messages') && typeof value === 'object')
      .flatMap(([name, group]) =>
        Object.entries(group as Record<string, unknown>).map(([key, text]) => ({
          id: `${name.replace(/Messages$/, '')}.${key}`,
          text,
        })),
      );
    expect(answered.length).toBeGreaterThan(50);
    for (const { id, text } of answered) {
      expect(english.messages[id], id).toBe(text);
    }
  });

  it('answers a contract text in the language asked for, and an unknown one as it is', () => {
    expect(translateMessage('Invalid email or password', 'de')).toBe(
      english.messages['auth.invalidCredentials'] === 'Invalid email or password'
        ? CATALOGS.de.messages['auth.invalidCredentials']
        : 'unreachable',
    );
    expect(translateMessage('Invalid email or password', 'de')).not.toBe(
      'Invalid email or password',
    );
    expect(translateMessage('Something the catalogs never heard of', 'es')).toBe(
      'Something the catalogs never heard of',
    );
    expect(translateMessage('Invalid email or password', 'en-XA')).toBe(
      pseudoLocalize('Invalid email or password'),
    );
  });

  it('fills placeholders in the pseudo-locale without bracketing them', () => {
    expect(translatorFor('en-XA')('common', 'appName')).toBe(pseudoLocalize('Kegel Coach'));
  });
});

describe('counts', () => {
  it('word one day in the singular and many without grouping, in every language', () => {
    const ledger = (locale: 'en' | 'de' | 'es', days: string) =>
      translatorFor(locale)('timeline', 'ledgerDays', { detail: 'payment', days });
    expect([ledger('en', '1'), ledger('de', '1'), ledger('es', '1')]).toEqual([
      'payment; 1 day',
      'payment; 1 Tag',
      'payment; 1 día',
    ]);
    expect(ledger('en', '3650')).toBe('payment; 3650 days');
  });
});

describe('choosing a language', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['de-DE,de;q=0.9,en;q=0.8', 'de'],
    ['fr-FR, es;q=0.5, de;q=0.4', 'es'],
    ['en;q=0.2, de-AT', 'de'],
    ['fr, it', 'en'],
    ['*', 'en'],
    ['de;q=0, es;q=0.1', 'es'],
    ['ES', 'es'],
  ])('Accept-Language %j gives %s', (header, locale) => {
    expect(negotiateLocale(header)).toBe(locale);
  });

  it('takes the stored choice over the cookie, and the cookie over the browser', () => {
    expect(pickLocale({ stored: 'es', cookie: 'de', acceptLanguage: 'en' })).toBe('es');
    expect(pickLocale({ stored: null, cookie: 'de', acceptLanguage: 'es' })).toBe('de');
    expect(pickLocale({ cookie: 'klingon', acceptLanguage: 'es' })).toBe('es');
    expect(pickLocale({ cookie: 'en-XA', acceptLanguage: 'es' })).toBe('en-XA');
    expect(pickLocale({ stored: 'en-XA', acceptLanguage: 'de' })).toBe('de');
  });
});
