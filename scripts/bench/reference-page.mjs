// The reference the first-page figures stand beside (issue 30): a minimal React 19 + Vite page,
// built in the same run with the web app's own Vite and React, and served by the product itself
// (its files are put under the web app's build, at /bench-reference/, for the run). It draws a
// heading, a short text and four choices, as /purchase draws its plans, and nothing else: what a
// product page costs beyond it is the product's own.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const webApp = path.join(root, 'apps/web');
// The web app's Vite, its React plugin and React: the same versions the product is built with.
const fromWebApp = createRequire(path.join(webApp, 'package.json'));

export const REFERENCE_PATH = '/bench-reference/';

const MAIN = `import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';

const CHOICES = ['1 Day', '1 Week', '1 Month', '1 Year'];

function Reference() {
  const [chosen, setChosen] = useState(CHOICES[3]);
  return (
    <main>
      <h1>Reference page</h1>
      <p>A minimal React page: what every page of the product costs at least.</p>
      <div role="radiogroup" aria-label="Choices">
        {CHOICES.map((choice) => (
          <label key={choice} style={{ display: 'block', padding: 12 }}>
            <input type="radio" name="choice" checked={chosen === choice} onChange={() => setChosen(choice)} />
            {choice}
          </label>
        ))}
      </div>
      <p>Chosen: {chosen}</p>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<StrictMode><Reference /></StrictMode>);
`;

/** Builds the reference page into `<webRoot>/bench-reference/`; answers a function removing it. */
export async function buildReferencePage(webRoot = path.join(webApp, 'dist')) {
  const { build } = await import(fromWebApp.resolve('vite'));
  const { default: react } = await import(fromWebApp.resolve('@vitejs/plugin-react'));
  // Inside the repository, so that its imports find the same React as the web app's.
  const source = path.join(root, 'node_modules/.cache/bench-reference');
  const outDir = path.join(webRoot, REFERENCE_PATH);
  try {
    mkdirSync(source, { recursive: true });
    writeFileSync(
      path.join(source, 'index.html'),
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Reference</title></head><body><div id="root"></div><script type="module" src="/main.jsx"></script></body></html>',
    );
    writeFileSync(path.join(source, 'main.jsx'), MAIN);
    await build({
      root: source,
      base: REFERENCE_PATH,
      configFile: false,
      logLevel: 'warn',
      mode: 'production',
      plugins: [react()],
      build: { outDir, emptyOutDir: true },
    });
  } finally {
    rmSync(source, { recursive: true, force: true });
  }
  return () => rmSync(outDir, { recursive: true, force: true });
}
