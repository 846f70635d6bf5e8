// Which JavaScript /home loads, and its gzip size: the entry with its static imports, plus the
// lazily loaded home page with its imports. Also checks that no member or purchase page is in it.
// Usage: npm run build && node scripts/measure-bundle.mjs
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const dist = fileURLToPath(new URL('../apps/web/dist/', import.meta.url));
const manifest = JSON.parse(readFileSync(path.join(dist, '.vite/manifest.json'), 'utf8'));

function collect(key, files = new Set()) {
  const chunk = manifest[key];
  if (!chunk || files.has(chunk.file)) return files;
  files.add(chunk.file);
  for (const imported of chunk.imports ?? []) collect(imported, files);
  return files;
}

const files = collect('index.html');
collect('src/features/marketing/pages/home-page.tsx', files);
const forbidden = [...files].filter((file) =>
  /(dashboard|settings|member|purchase|history|login|register)/.test(file),
);

let raw = 0;
let gzip = 0;
for (const file of files) {
  const bytes = readFileSync(path.join(dist, file));
  raw += bytes.length;
  gzip += gzipSync(bytes, { level: 9 }).length;
  console.log(
    `${file.padEnd(44)} ${(bytes.length / 1024).toFixed(1).padStart(7)} kB  gzip ${(gzipSync(bytes, { level: 9 }).length / 1024).toFixed(1).padStart(6)} kB`,
  );
}
console.log(
  `/home JavaScript: ${(raw / 1024).toFixed(1)} kB, gzip ${(gzip / 1024).toFixed(1)} kB, in ${files.size} files`,
);
if (forbidden.length > 0) {
  console.error(`/home loads member, auth or purchase code: ${forbidden.join(', ')}`);
  process.exit(1);
}
