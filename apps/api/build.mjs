// Bundles the API into dist/main.js (our workspace packages inlined, npm dependencies left as
// imports) and copies the SQL migrations next to it, where src/db/migrate.ts looks for them.
// `--outdir <dir>` builds elsewhere (a test builds a server of its own while dist/ may be serving).
import { cp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { build } from 'esbuild';

const packageJson = JSON.parse(await readFile(new URL('./package.json', import.meta.url), 'utf8'));
const external = Object.keys(packageJson.dependencies).filter(
  (name) => !name.startsWith('@kegel/'),
);

const { values } = parseArgs({ options: { outdir: { type: 'string', default: 'dist' } } });
const outdir = values.outdir;

await rm(outdir, { recursive: true, force: true });
await build({
  // The server, and the commands run on it: granting parked payments, operator roles, and
  // verifying the audit trail.
  entryPoints: [
    'src/main.ts',
    'src/replay-payments.ts',
    'src/operator-command.ts',
    'src/verify-audit.ts',
  ],
  outdir,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  // Each `await import()` becomes a file of its own, loaded only when that branch runs: the
  // sandboxes (refused in production) stay out of what a production process loads.
  splitting: true,
  external,
  logLevel: 'warning',
});
await cp('src/db/migrations', path.join(outdir, 'migrations'), { recursive: true });
console.log(
  `api built: ${path.join(outdir, 'main.js')}, ${path.join(outdir, 'replay-payments.js')}`,
);
