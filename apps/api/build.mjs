// Bundles the API into dist/main.js (our workspace packages inlined, npm dependencies left as
// imports) and copies the SQL migrations next to it, where src/db/migrate.ts looks for them.
import { cp, readFile, rm } from 'node:fs/promises';

import { build } from 'esbuild';

const packageJson = JSON.parse(await readFile(new URL('./package.json', import.meta.url), 'utf8'));
const external = Object.keys(packageJson.dependencies).filter(
  (name) => !name.startsWith('@kegel/'),
);

await rm('dist', { recursive: true, force: true });
await build({
  // The server, and the operator's command that grants parked payments.
  entryPoints: ['src/main.ts', 'src/replay-payments.ts'],
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external,
  logLevel: 'warning',
});
await cp('src/db/migrations', 'dist/migrations', { recursive: true });
console.log('api built: apps/api/dist/main.js, apps/api/dist/replay-payments.js');
