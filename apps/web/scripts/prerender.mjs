// Prerendering, the step of `npm run build` after `vite build`: each visitor's page in
// `prerenderedPaths` (src/app/page-modules.ts) is drawn once in Node, as a browser with no one
// signed in first draws it, into #root of its copy of index.html (dist/pages/<address>.html). The
// page then shows as soon as its HTML and CSS have arrived, before any of its code has downloaded
// or run; the code takes the HTML over (hydrateRoot in src/main.tsx) instead of drawing it again.
// The member area (`framedPaths`) gets only the frame a member sees while his profile loads.
//
// A page so drawn needs its stylesheets for its first paint, and its code only after: its scripts
// are marked `fetchpriority="low"`, so a phone on a slow network fetches the stylesheets first
// (Chrome asks for scripts at high priority otherwise, and Lighthouse then counts them as
// blocking the first paint, which here they do not).
//
// The app is built for Node first (src/prerender.tsx, everything bundled in, into a temporary
// folder), with the same Vite configuration, so its CSS module class names are the browser's.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { build } from 'vite';

const ROOT_ELEMENT = '<div id="root"></div>';
/** The entry script and the preloads of the chunks it imports (Vite's and page-preloads.ts's). */
const SCRIPT_TAGS = /<(script type="module"|link rel="modulepreload")(?![^>]*fetchpriority)/g;
const ENGLISH_HTML = '<html lang="en">';
/** Where the other languages' copies of every page go, under dist/ (languages/de/pages/…). */
const LANGUAGES_FOLDER = 'languages';

/**
 * Where a page's copy of index.html is (scripts/page-preloads.ts writes the English one): in
 * English at pages/<address>.html, in another language at languages/<locale>/pages/<address>.html.
 */
export function pageFile(distDir, address, locale = 'en') {
  const file = path.join('pages', `${address}.html`);
  return locale === 'en'
    ? path.join(distDir, file)
    : path.join(distDir, LANGUAGES_FOLDER, locale, file);
}

/**
 * For each HTML file of the build, the catalog chunks in `locale` of the code it loads first (the
 * entry and the page's modules, with their static imports, from Vite's manifest): a page in German
 * preloads its German texts beside its code, rather than asking for them once the code has run.
 */
async function catalogPreloads(distDir, locale) {
  const manifest = JSON.parse(await readFile(path.join(distDir, '.vite/manifest.json'), 'utf8'));
  const pageModules = JSON.parse(
    await readFile(path.join(distDir, '.vite/page-modules.json'), 'utf8'),
  );
  // Keyed `catalog/<namespace>/<locale>`, behind `../` when the build ran from another folder.
  const catalogOfLocale = new RegExp(`(^|/)catalog/[^/]+/${locale.replace('-', '\\-')}$`);
  function catalogFiles(keys) {
    const seen = new Set();
    const files = new Set();
    const visit = (key) => {
      if (seen.has(key) || !manifest[key]) return;
      seen.add(key);
      for (const imported of manifest[key].imports ?? []) visit(imported);
      for (const dynamic of manifest[key].dynamicImports ?? []) {
        if (catalogOfLocale.test(dynamic)) files.add(manifest[dynamic].file);
      }
    };
    for (const key of keys) visit(key);
    return [...files];
  }
  const links = (files) =>
    files.map((file) => `<link rel="modulepreload" crossorigin href="/${file}">`).join('');
  const byTemplate = new Map([['index.html', links(catalogFiles(['index.html']))]]);
  for (const [address, modules] of Object.entries(pageModules)) {
    byTemplate.set(pageFile('', address), links(catalogFiles(['index.html', ...modules])));
  }
  return byTemplate;
}

/** Every HTML file of the build that serves a page: index.html and pages/**.html, relative. */
async function pageTemplates(distDir) {
  const found = ['index.html'];
  async function walk(folder) {
    for (const entry of await readdir(path.join(distDir, folder), { withFileTypes: true })) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(file);
      else if (entry.name.endsWith('.html')) found.push(file);
    }
  }
  await walk('pages');
  return found;
}

/**
 * Draws every prerendered page into its copy under `distDir` (a finished `vite build`), once per
 * language: English into the build's own files, every other language (and the pseudo-locale)
 * into a copy of every page under languages/<locale>/, `<html lang>` set, so the server answers
 * each reader in his language with no English drawn first (plugins/web-app.ts in the API).
 * Returns what it wrote: address, language and bytes of markup.
 */
export async function prerenderPages({ webRoot, distDir }) {
  const serverDir = await mkdtemp(path.join(tmpdir(), 'kegel-prerender-'));
  try {
    await build({
      root: webRoot,
      configFile: path.join(webRoot, 'vite.config.ts'),
      logLevel: 'warn',
      build: {
        ssr: 'src/prerender.tsx',
        outDir: serverDir,
        emptyOutDir: true,
        sourcemap: false,
        manifest: false,
        copyPublicDir: false,
      },
      // One self-contained file: the temporary folder has no node_modules to import from.
      ssr: { noExternal: true },
    });
    const entry = (await readdir(serverDir)).find((file) => /^prerender\.m?js$/.test(file));
    if (!entry) throw new Error(`the prerender build wrote no entry in ${serverDir}`);
    const { renderPage, prerenderedPaths, renderFrame, framedPaths, PAGE_LOCALES } = await import(
      pathToFileURL(path.join(serverDir, entry)).href
    );
    // The visitors' pages, which the app takes over (hydrates), and the member area's frame,
    // which it replaces: `data-frame-only` tells src/main.tsx which is which.
    const drawings = new Map([
      ...prerenderedPaths.map((address) => [
        pageFile('', address),
        { address, draw: renderPage, rootAttributes: '' },
      ]),
      ...framedPaths.map((address) => [
        pageFile('', address),
        { address, draw: renderFrame, rootAttributes: ' data-frame-only' },
      ]),
    ]);
    const templates = new Map();
    for (const file of await pageTemplates(distDir)) {
      const html = await readFile(path.join(distDir, file), 'utf8');
      if (!html.includes(ENGLISH_HTML)) throw new Error(`${file} has no ${ENGLISH_HTML}`);
      templates.set(file, html);
    }
    const written = [];
    for (const locale of PAGE_LOCALES) {
      const folder = locale === 'en' ? distDir : path.join(distDir, LANGUAGES_FOLDER, locale);
      const preloads = locale === 'en' ? new Map() : await catalogPreloads(distDir, locale);
      for (const [file, template] of templates) {
        let html = template
          .replace(ENGLISH_HTML, () => `<html lang="${locale}">`)
          .replace('</head>', () => `${preloads.get(file) ?? ''}</head>`);
        const drawing = drawings.get(file);
        if (drawing) {
          if (!html.includes(ROOT_ELEMENT)) {
            throw new Error(`${file} has no empty ${ROOT_ELEMENT} to draw ${drawing.address} into`);
          }
          const markup = await drawing.draw(drawing.address, locale);
          html = html
            .replace(SCRIPT_TAGS, '<$1 fetchpriority="low"')
            // A function, not a string: `$&` and the like in the page's text stay as they are.
            .replace(ROOT_ELEMENT, () => `<div id="root"${drawing.rootAttributes}>${markup}</div>`);
          written.push({ address: drawing.address, locale, bytes: Buffer.byteLength(markup) });
        }
        const target = path.join(folder, file);
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, html);
      }
    }
    return written;
  } finally {
    await rm(serverDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const webRoot = fileURLToPath(new URL('..', import.meta.url));
  const written = await prerenderPages({ webRoot, distDir: path.join(webRoot, 'dist') });
  const english = written.filter(({ locale }) => locale === 'en');
  console.log(
    `prerendered ${english.map(({ address, bytes }) => `${address} (${bytes} B)`).join(', ')}` +
      `, and each again in ${written.length / english.length - 1} other languages`,
  );
  // The pages drawn leave the app's timers behind (the query cache's collection of unused
  // answers, minutes away): the build goes on now rather than waiting them out.
  process.exit(0);
}
