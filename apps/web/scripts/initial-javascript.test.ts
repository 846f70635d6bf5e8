// The first page's weight, held to its budget on a fresh build of the web app (into a folder of
// its own: apps/web/dist may be serving the end-to-end tests meanwhile). Bytes of a build are the
// same on every run, so these are exact; `npm run measure:bundle` prints the same figures.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  BEFORE_THE_DESK,
  deskFiles,
  GROWN_FOR_FIELD_MESSAGES,
  GROWN_FOR_LANGUAGES,
  GROWN_FOR_LAZY_SCHEMAS,
  GROWN_FOR_MONEY_OPERATIONS,
  GROWN_FOR_QUICK_PAGES,
  INITIAL_JAVASCRIPT_BUDGETS_KB,
  type InitialJavaScript,
  measureInitialJavaScript,
  NOT_FOR_HOME,
  STILL_OVER_BEFORE_THE_DESK,
} from './initial-javascript.mjs';

const webRoot = fileURLToPath(new URL('..', import.meta.url));
/**
 * The pages the build draws whose forms are the first thing a visitor uses (sign-in, registration,
 * password reset, checkout) and the emailed "This wasn't me" page: none builds zod's schemas as it
 * starts (shared/forms/lazy-schema.ts, issue 30).
 */
const PAGES_DRAWN_BEFORE_THE_APP = [
  '/home',
  '/auth/login',
  '/auth/register',
  '/auth/reset',
  '/account/recover/new',
  '/account/sign-in-not-me',
  '/purchase',
];

let outDir: string;
let pages: InitialJavaScript[];
let desk: string[];

beforeAll(async () => {
  outDir = mkdtempSync(path.join(tmpdir(), 'kegel-web-build-'));
  await build({
    root: webRoot,
    configFile: path.join(webRoot, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true },
  });
  pages = measureInitialJavaScript(outDir);
  desk = deskFiles(outDir);
});

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

function page(address: string): InitialJavaScript {
  const found = pages.find((candidate) => candidate.address === address);
  if (!found) throw new Error(`the build has no page for ${address}`);
  return found;
}

describe('the JavaScript a page loads before it shows', () => {
  it.each(Object.entries(INITIAL_JAVASCRIPT_BUDGETS_KB))(
    'stays within its budget on %s (%i kB of gzip)',
    (address, budgetKb) => {
      expect(page(address).gzip / 1024).toBeLessThanOrEqual(budgetKb);
    },
  );

  it.each(Object.entries(BEFORE_THE_DESK))(
    'is no bigger on %s than before the support desk',
    (address, before) => {
      const { raw, gzip } = page(address);
      const over = STILL_OVER_BEFORE_THE_DESK[address] ?? { raw: 0, gzip: 0 };
      const grown = GROWN_FOR_MONEY_OPERATIONS[address] ?? { raw: 0, gzip: 0 };
      const named = GROWN_FOR_FIELD_MESSAGES[address] ?? { raw: 0, gzip: 0 };
      const spoken = GROWN_FOR_LANGUAGES[address] ?? { raw: 0, gzip: 0 };
      const quicker = GROWN_FOR_QUICK_PAGES[address] ?? { raw: 0, gzip: 0 };
      const lazy = GROWN_FOR_LAZY_SCHEMAS[address] ?? { raw: 0, gzip: 0 };
      expect(raw, 'raw bytes').toBeLessThanOrEqual(
        before.raw + over.raw + grown.raw + named.raw + spoken.raw + quicker.raw + lazy.raw,
      );
      expect(gzip, 'gzip bytes').toBeLessThanOrEqual(
        before.gzip + over.gzip + grown.gzip + named.gzip + spoken.gzip + quicker.gzip + lazy.gzip,
      );
    },
  );

  it('is all named by the page itself, so it downloads beside the entry, not after it', () => {
    for (const { address, files, preloaded } of pages) {
      expect(preloaded.sort(), address).toEqual(files.map(({ file }) => file).sort());
    }
  });

  it('carries none of the support desk outside /ops: the desk is its own chunks', () => {
    // The desk's layout and each of its pages are files of their own.
    expect(desk.length).toBeGreaterThanOrEqual(5);
    for (const { address, files } of pages) {
      if (address === '/ops' || address.startsWith('/ops/')) continue;
      expect(
        files.map(({ file }) => file).filter((file) => desk.includes(file)),
        address,
      ).toEqual([]);
    }
  });

  it("names no address of the desk outside /ops but the router's mount point", () => {
    // The desk's addresses live beside it (features/support-desk/paths.ts), not in the site's
    // table of paths, which every page loads: the entry's `/ops/*` route is all a visitor carries.
    // (The API's /ops calls are in the contract's table of calls, as before the desk had a page.)
    for (const { address, files } of pages) {
      if (address === '/ops' || address.startsWith('/ops/')) continue;
      const code = files.map(({ file }) => readFileSync(path.join(outDir, file), 'utf8')).join('');
      // A page address of the desk, as config/paths.ts spells one: `{ path: '/ops…', getHref }`.
      expect(code.match(/[`'"]\/ops[^`'"]*[`'"],getHref|=>\s*[`'"]\/ops/g), address).toBeNull();
      expect(code.split('`/ops/*`').length - 1, address).toBe(1);
    }
  });

  it('carries no member, auth or purchase page on /home', () => {
    expect(
      page('/home')
        .files.map(({ file }) => file)
        .filter((file) => NOT_FOR_HOME.test(file)),
    ).toEqual([]);
  });

  it.each(PAGES_DRAWN_BEFORE_THE_APP)(
    'carries no zod on %s: its forms import it on first touch',
    (address) => {
      const modules = modulesOf(address);
      // The check sees the modules, not only their absence: a page is made of the app's own files.
      expect(modules.some((source) => source.includes('/src/'))).toBe(true);
      expect(modules.filter((source) => source.includes('/node_modules/zod/'))).toEqual([]);
    },
  );

  it.each(Object.keys(BEFORE_THE_DESK))(
    "carries React Router's production build on %s, not its development one (vite.config.ts)",
    (address) => {
      const router = modulesOf(address).filter((source) =>
        source.includes('/node_modules/react-router/'),
      );
      expect(router.length).toBeGreaterThan(0);
      expect(router.filter((source) => !source.includes('/react-router/dist/production/'))).toEqual(
        [],
      );
    },
  );
});

/** The modules a page's first JavaScript is made of, read from the build's source maps. */
function modulesOf(address: string): string[] {
  return page(address).files.flatMap(({ file }) => {
    // Rolldown's runtime, a few lines of its own, is the one file without a map.
    const mapFile = path.join(outDir, `${file}.map`);
    if (!existsSync(mapFile)) return [];
    return (JSON.parse(readFileSync(mapFile, 'utf8')) as { sources: string[] }).sources;
  });
}
