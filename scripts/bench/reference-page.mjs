// The reference the first-page figures stand beside (issue 30): a minimal React 19 + Vite page,
// built in the same run with the web app's own Vite and React, and served by the product itself
// (its files are put under the web app's build, at /bench-reference/, for the run). It draws a
// heading, a short text and four choices, as /purchase draws its plans, and nothing else: what a
// product page costs beyond it is the product's own. Beside it, the same page prerendered
// (/bench-reference-prerendered/), to tell what drawing before the script runs costs by itself.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const webApp = path.join(root, 'apps/web');
// The web app's Vite and React: the same versions the product is built with.
const fromWebApp = createRequire(path.join(webApp, 'package.json'));

export const REFERENCE_PATH = '/bench-reference/';

// The page's one component, without JSX: the build bundles it for the browser, and Node imports it
// to draw the prerendered variant's HTML.
const REFERENCE_COMPONENT = `import { createElement as h, useState } from 'react';

const CHOICES = ['1 Day', '1 Week', '1 Month', '1 Year'];

export function Reference() {
  const [chosen, setChosen] = useState(CHOICES[3]);
  return h(
    'main',
    null,
    h('h1', null, 'Reference page'),
    h('p', null, 'A minimal React page: what every page of the product costs at least.'),
    h(
      'div',
      { role: 'radiogroup', 'aria-label': 'Choices' },
      CHOICES.map((choice) =>
        h(
          'label',
          { key: choice, style: { display: 'block', padding: 12 } },
          h('input', {
            type: 'radio',
            name: 'choice',
            checked: chosen === choice,
            onChange: () => setChosen(choice),
          }),
          choice,
        ),
      ),
    ),
    h('p', null, 'Chosen: ', chosen),
  );
}
`;

const MAIN = `import { createElement as h, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { Reference } from './reference.js';

createRoot(document.getElementById('root')).render(h(StrictMode, null, h(Reference)));
`;

/**
 * The same page drawn by the build, as the product's visitor pages are (scripts/prerender.mjs):
 * its HTML arrives with the page in it, and React takes it over (hydrateRoot, in a transition as
 * apps/web/src/main.tsx does). Not a goal's reference: it shows what drawing first costs in Total
 * Blocking Time, which counts only the main thread's work after the first paint.
 */
export const PRERENDERED_REFERENCE_PATH = '/bench-reference-prerendered/';

const PRERENDERED_MAIN = `import { createElement as h, StrictMode, startTransition } from 'react';
import { hydrateRoot } from 'react-dom/client';

import { Reference } from './reference.js';

startTransition(() => {
  hydrateRoot(document.getElementById('root'), h(StrictMode, null, h(Reference)));
});
`;

const page = (body) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Reference</title></head><body><div id="root">${body}</div><script type="module" src="/main.js"></script></body></html>`;

/**
 * Builds the reference page into `<webRoot>/bench-reference/`, and its prerendered variant into
 * `<webRoot>/bench-reference-prerendered/`; answers a function removing both.
 */
export async function buildReferencePage(webRoot = path.join(webApp, 'dist')) {
  const { build } = await import(fromWebApp.resolve('vite'));
  // Inside the repository, so that its imports find the same React as the web app's.
  const source = path.join(root, 'node_modules/.cache/bench-reference');
  const outDirs = [REFERENCE_PATH, PRERENDERED_REFERENCE_PATH].map((base) =>
    path.join(webRoot, base),
  );
  try {
    mkdirSync(source, { recursive: true });
    writeFileSync(path.join(source, 'reference.js'), REFERENCE_COMPONENT);
    const { Reference } = await import(pathToFileURL(path.join(source, 'reference.js')).href);
    const { createElement } = await import(pathToFileURL(fromWebApp.resolve('react')).href);
    const { renderToString } = await import(
      pathToFileURL(fromWebApp.resolve('react-dom/server')).href
    );
    const variants = [
      { base: REFERENCE_PATH, main: MAIN, body: '' },
      {
        base: PRERENDERED_REFERENCE_PATH,
        main: PRERENDERED_MAIN,
        body: renderToString(createElement(Reference)),
      },
    ];
    for (const [index, { base, main, body }] of variants.entries()) {
      writeFileSync(path.join(source, 'index.html'), page(body));
      writeFileSync(path.join(source, 'main.js'), main);
      await build({
        root: source,
        base,
        configFile: false,
        logLevel: 'warn',
        mode: 'production',
        build: { outDir: outDirs[index], emptyOutDir: true },
      });
    }
  } finally {
    rmSync(source, { recursive: true, force: true });
  }
  return () => {
    for (const outDir of outDirs) rmSync(outDir, { recursive: true, force: true });
  };
}
