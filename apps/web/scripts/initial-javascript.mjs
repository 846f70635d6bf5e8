// What JavaScript a page loads before it can show anything, read from a build (apps/web/dist or
// any other outDir): the entry with its static imports, plus the page's lazily loaded modules
// (.vite/page-modules.json, written by page-preloads.ts) with theirs, from Vite's manifest. Sizes
// are gzip level 9, as precompress.mjs sends them. Used by `npm run measure:bundle` and by
// initial-javascript.test.ts, which holds the budgets below.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** The most initial JavaScript, in kB of gzip (1 kB = 1024 bytes), each page may load. */
export const INITIAL_JAVASCRIPT_BUDGETS_KB = {
  '/home': 110,
  '/auth/login': 140,
  '/purchase': 140,
};

/** The files of the member area, the auth forms and checkout, none of which /home may load. */
export const NOT_FOR_HOME = /(dashboard|settings|member|purchase|history|login|register)/;

/**
 * The support desk's modules (its route tree and its feature folder), which only the /ops addresses may
 * load: operators are a handful of people, and no visitor or member carries their code.
 */
export const DESK_MODULE = /^src\/(features\/support-desk\/|app\/routes\/support-desk-routes)/;

/** The built files that hold a module of the desk, from Vite's manifest. */
export function deskFiles(distDir) {
  const manifest = readJson(distDir, '.vite/manifest.json');
  return Object.entries(manifest)
    .filter(([key, chunk]) => DESK_MODULE.test(chunk.src ?? key))
    .map(([, chunk]) => chunk.file);
}

function readJson(distDir, file) {
  return JSON.parse(readFileSync(path.join(distDir, file), 'utf8'));
}

/**
 * For every address of the app: the JavaScript files it loads at first (`files`), their raw and
 * gzip bytes, and the scripts its HTML names (`preloaded`: the entry and the modulepreloads), which
 * must be the same files for the page to load without a waterfall.
 */
export function measureInitialJavaScript(distDir) {
  const manifest = readJson(distDir, '.vite/manifest.json');
  const pageModules = readJson(distDir, '.vite/page-modules.json');

  function withStaticImports(key, files) {
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not in the build's manifest`);
    if (files.has(chunk.file)) return files;
    files.add(chunk.file);
    for (const imported of chunk.imports ?? []) withStaticImports(imported, files);
    return files;
  }

  const sizes = new Map();
  function sizeOf(file) {
    if (!sizes.has(file)) {
      const bytes = readFileSync(path.join(distDir, file));
      sizes.set(file, { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length });
    }
    return sizes.get(file);
  }

  return Object.entries(pageModules).map(([address, modules]) => {
    const files = withStaticImports('index.html', new Set());
    for (const module of modules) withStaticImports(module, files);
    const html = readFileSync(path.join(distDir, `pages${address}.html`), 'utf8');
    const preloaded = [
      ...html.matchAll(
        /<(?:script type="module"|link rel="modulepreload")[^>]* (?:src|href)="\/([^"]+\.js)"/g,
      ),
    ].map((match) => match[1]);
    return {
      address,
      files: [...files].map((file) => ({ file, ...sizeOf(file) })),
      raw: [...files].reduce((sum, file) => sum + sizeOf(file).raw, 0),
      gzip: [...files].reduce((sum, file) => sum + sizeOf(file).gzip, 0),
      preloaded,
    };
  });
}
