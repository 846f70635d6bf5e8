// The JavaScript each page loads before it can show anything, raw and gzip, from the build's
// manifest (apps/web/scripts/initial-javascript.mjs), against the budgets the tests hold; and
// the checks that each page's HTML preloads exactly that (no waterfall) and that /home carries
// no member, auth or purchase page.
// Usage: npm run measure:bundle (builds through scripts/start.mjs, which leaves the build stamp,
// so the next `npm start` does not build again).
import { fileURLToPath } from 'node:url';

import {
  INITIAL_JAVASCRIPT_BUDGETS_KB,
  measureInitialJavaScript,
  NOT_FOR_HOME,
} from '../apps/web/scripts/initial-javascript.mjs';

const dist = fileURLToPath(new URL('../apps/web/dist/', import.meta.url));
const kB = (bytes) => (bytes / 1024).toFixed(1);
const problems = [];

for (const page of measureInitialJavaScript(dist)) {
  const budget = INITIAL_JAVASCRIPT_BUDGETS_KB[page.address];
  console.log(
    `${page.address.padEnd(30)} ${kB(page.raw).padStart(6)} kB, gzip ${kB(page.gzip).padStart(5)} kB` +
      ` in ${page.files.length} files${budget ? ` (budget ${budget} kB)` : ''}`,
  );
  if (process.argv.includes('--files')) {
    for (const { file, raw, gzip } of page.files) {
      console.log(
        `    ${file.padEnd(44)} ${kB(raw).padStart(6)} kB  gzip ${kB(gzip).padStart(5)} kB`,
      );
    }
  }
  if (budget && page.gzip > budget * 1024) {
    problems.push(`${page.address} loads ${kB(page.gzip)} kB of gzip, over its ${budget} kB`);
  }
  const missing = page.files
    .map(({ file }) => file)
    .filter((file) => !page.preloaded.includes(file));
  if (missing.length > 0) problems.push(`${page.address} does not preload ${missing.join(', ')}`);
  if (page.address === '/home') {
    const forbidden = page.files.map(({ file }) => file).filter((file) => NOT_FOR_HOME.test(file));
    if (forbidden.length > 0) {
      problems.push(`/home loads member, auth or purchase code: ${forbidden.join(', ')}`);
    }
  }
}
for (const problem of problems) console.error(problem);
if (problems.length > 0) process.exit(1);
