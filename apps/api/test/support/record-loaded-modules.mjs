// Preloaded by a test with `node --import <this file's URL>?to=<a file path>`: writes every module
// the process loads, one URL a line, to that file. ES modules are seen by a load hook (our bundle
// and its npm imports, CommonJS ones included); what CommonJS code requires on its own is read
// from the require cache when the process exits.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const file = new URL(import.meta.url).searchParams.get('to');
if (!file) throw new Error('?to=: the file to record loaded modules in');

register('./record-loaded-modules-hooks.mjs', import.meta.url, { data: { file } });

const requireCache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  const required = Object.keys(requireCache).map((filename) => pathToFileURL(filename).href);
  appendFileSync(file, required.map((url) => `${url}\n`).join(''));
});
