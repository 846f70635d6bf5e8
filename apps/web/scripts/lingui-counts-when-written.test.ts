// Lingui as the build ships it (vite.config.ts): a plural whose case does not show its count makes
// no Intl.NumberFormat, one that does writes it as before. Lingui's own file is changed by the
// plugin into a folder of this test's own and imported from there, beside the file as npm has it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import type { I18n } from '@lingui/core';
import { compileMessage } from '@lingui/message-utils/compileMessage';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

import { formatCountsOnlyWhenWritten } from './lingui-counts-when-written.ts';

const require = createRequire(import.meta.url);
const linguiFile = path.join(
  path.dirname(require.resolve('@lingui/core/package.json')),
  'dist/index.mjs',
);
const folder = mkdtempSync(path.join(tmpdir(), 'lingui-counts-'));
/** Each load gets a file of its own: a module imported twice from one address is the same one. */
let loads = 0;

/** Lingui's module, as npm has it or as the build changes it, loaded afresh (its own caches). */
async function lingui(changed: boolean): Promise<{ setupI18n: () => I18n }> {
  const original = readFileSync(linguiFile, 'utf8').replace(
    "from '@lingui/message-utils/compileMessage'",
    `from '${pathToFileURL(require.resolve('@lingui/message-utils/compileMessage')).href}'`,
  );
  loads += 1;
  const file = path.join(folder, `${changed ? 'changed' : 'original'}-${loads}.mjs`);
  writeFileSync(file, changed ? formatCountsOnlyWhenWritten(original) : original);
  return (await import(pathToFileURL(file).href)) as { setupI18n: () => I18n };
}

/** The plan card's total, as the catalog has it: the count is `{days}`, not `#`. */
const PLAN_TOTAL = '{price} for {days, plural, one {1 day} other {{days} days}}';
/** Like the desk's notice (opensForHours): the count is `#`. */
const OPENS_FOR = '{hours, plural, one {# hour} other {# hours}} after you prove it';

async function withMessages(changed: boolean): Promise<I18n> {
  const i18n = (await lingui(changed)).setupI18n();
  i18n.loadAndActivate({
    locale: 'en',
    messages: { planTotal: compileMessage(PLAN_TOTAL), opensFor: compileMessage(OPENS_FOR) },
  });
  return i18n;
}

const RealNumberFormat = Intl.NumberFormat;
/** Counts the number formatters made from now on (until the test ends). */
function countNumberFormats(): () => number {
  let made = 0;
  Intl.NumberFormat = class extends RealNumberFormat {
    constructor(...args: ConstructorParameters<typeof RealNumberFormat>) {
      super(...args);
      made += 1;
    }
  } as typeof Intl.NumberFormat;
  return () => made;
}

afterEach(() => {
  Intl.NumberFormat = RealNumberFormat;
});
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

describe('plural counts in the built app', () => {
  it('Lingui as npm ships it makes a number formatter for a count no case shows', async () => {
    const i18n = await withMessages(false);
    const numberFormatsMade = countNumberFormats();
    expect(i18n._('planTotal', { price: '$9.99', days: 30 })).toBe('$9.99 for 30 days');
    expect(numberFormatsMade()).toBeGreaterThan(0);
  });

  it('makes none for it once changed, and the text is the same', async () => {
    const i18n = await withMessages(true);
    const numberFormatsMade = countNumberFormats();
    expect(i18n._('planTotal', { price: '$9.99', days: 30 })).toBe('$9.99 for 30 days');
    expect(i18n._('planTotal', { price: '$1.99', days: 1 })).toBe('$1.99 for 1 day');
    expect(numberFormatsMade()).toBe(0);
  });

  it('still writes a shown count with Intl, grouped as the language writes it', async () => {
    const i18n = await withMessages(true);
    const numberFormatsMade = countNumberFormats();
    expect(i18n._('opensFor', { hours: 1 })).toBe('1 hour after you prove it');
    expect(i18n._('opensFor', { hours: 1200 })).toBe('1,200 hours after you prove it');
    expect(numberFormatsMade()).toBeGreaterThan(0);
  });

  it('stops the build when Lingui no longer has the code it changes', () => {
    expect(() => formatCountsOnlyWhenWritten('export const i18n = {};')).toThrow(
      /lingui-counts-when-written/,
    );
  });
});
