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
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { build } from 'vite';

const ROOT_ELEMENT = '<div id="root"></div>';
/** The entry script and the preloads of the chunks it imports (Vite's and page-preloads.ts's). */
const SCRIPT_TAGS = /<(script type="module"|link rel="modulepreload")(?![^>]*fetchpriority)/g;

/** Where a page's copy of index.html is (scripts/page-preloads.ts writes it). */
export function pageFile(distDir, address) {
  return path.join(distDir, 'pages', `${address}.html`);
}

/**
 * Draws every prerendered page into its copy under `distDir` (a finished `vite build`).
 * Returns what it wrote: address and bytes of markup.
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
    const { renderPage, prerenderedPaths, renderFrame, framedPaths } = await import(
      pathToFileURL(path.join(serverDir, entry)).href
    );
    const written = [];
    // The visitors' pages, which the app takes over (hydrates), and the member area's frame,
    // which it replaces: `data-frame-only` tells src/main.tsx which is which.
    const drawings = [
      ...prerenderedPaths.map((address) => ({ address, draw: renderPage, rootAttributes: '' })),
      ...framedPaths.map((address) => ({
        address,
        draw: renderFrame,
        rootAttributes: ' data-frame-only',
      })),
    ];
    for (const { address, draw, rootAttributes } of drawings) {
      const file = pageFile(distDir, address);
      const html = await readFile(file, 'utf8');
      if (!html.includes(ROOT_ELEMENT)) {
        throw new Error(`${file} has no empty ${ROOT_ELEMENT} to draw ${address} into`);
      }
      const markup = await draw(address);
      const drawn = html
        .replace(SCRIPT_TAGS, '<$1 fetchpriority="low"')
        // A function, not a string: `$&` and the like in the page's text stay as they are.
        .replace(ROOT_ELEMENT, () => `<div id="root"${rootAttributes}>${markup}</div>`);
      await writeFile(file, drawn);
      written.push({ address, bytes: Buffer.byteLength(markup) });
    }
    return written;
  } finally {
    await rm(serverDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const webRoot = fileURLToPath(new URL('..', import.meta.url));
  const written = await prerenderPages({ webRoot, distDir: path.join(webRoot, 'dist') });
  console.log(
    `prerendered ${written.map(({ address, bytes }) => `${address} (${bytes} B)`).join(', ')}`,
  );
  // The pages drawn leave the app's timers behind (the query cache's collection of unused
  // answers, minutes away): the build goes on now rather than waiting them out.
  process.exit(0);
}
