// Bundles the API into dist/main.js (our workspace packages and the few npm packages below
// inlined, every other npm dependency left as an import) and copies the SQL migrations next to
// it, where src/db/migrate.ts looks for them.
// `--outdir <dir>` builds elsewhere (a test builds a server of its own while dist/ may be serving).
import { cp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { build, transform } from 'esbuild';

import { INLINED_PACKAGES, isInlined } from './inlined-packages.mjs';

/**
 * Every other bare import stays an import; the workspace's own packages are bundled. The built
 * files import from apps/api/dist, so each package they name is a dependency in package.json,
 * those the inlined packages import (@fastify/error, @messageformat/parser) too: npm installs and
 * finds it there whatever it hoists (production-modules.test.ts).
 */
const npmImportsStayImports = {
  name: 'npm-imports-stay-imports',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, ({ path: specifier }) =>
      specifier.startsWith('@kegel/') || isInlined(specifier)
        ? undefined
        : { path: specifier, external: true },
    );
  },
};

/**
 * An inlined package's files without their comments and blank space (their source maps kept):
 * V8 holds the source of every module it loaded for as long as the process runs, in one byte a
 * character, or in two for the whole file once one character needs it, and zod's comments carry
 * an em dash (production-modules.test.ts holds the built files to Latin-1).
 */
const inlinedPackagesCompact = {
  name: 'inlined-packages-compact',
  setup(build) {
    build.onLoad(
      {
        filter: new RegExp(
          `/node_modules/(${INLINED_PACKAGES.map((name) => name.replace('/', '\\/')).join('|')})/.*\\.[cm]?js$`,
        ),
      },
      async ({ path: file }) => {
        const { code } = await transform(await readFile(file, 'utf8'), {
          loader: 'js',
          minifyWhitespace: true,
          charset: 'ascii',
          sourcemap: 'inline',
          sourcefile: file,
        });
        return { contents: code, loader: 'js', resolveDir: path.dirname(file) };
      },
    );
  },
};

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
  // The maps without the sources' text: a stack trace needs only the positions, and a server run
  // with --enable-source-maps (the development start; production when asked for, Dockerfile)
  // keeps every loaded file's map for the process's life.
  sourcesContent: false,
  // Each `await import()` becomes a file of its own, loaded only when that branch runs: the
  // sandboxes (refused in production) stay out of what a production process loads.
  splitting: true,
  plugins: [npmImportsStayImports, inlinedPackagesCompact],
  logLevel: 'warning',
});
await cp('src/db/migrations', path.join(outdir, 'migrations'), { recursive: true });
console.log(
  `api built: ${path.join(outdir, 'main.js')}, ${path.join(outdir, 'replay-payments.js')}`,
);
