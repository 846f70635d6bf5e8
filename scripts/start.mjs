// `npm start`: builds what is not built yet (or changed since its last build), then runs the
// server in this process. A build is skipped when the hash of its inputs matches the stamp the
// last build left in its dist/ folder, so a second start goes straight to the server.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const shared = ['packages/contract/src', 'packages/contract/package.json', 'package-lock.json'];

const targets = [
  {
    workspace: '@kegel/web',
    inputs: [
      'apps/web/src',
      'apps/web/public',
      'apps/web/index.html',
      'apps/web/vite.config.ts',
      'apps/web/package.json',
      'apps/web/scripts',
      ...shared,
    ],
    stamp: 'apps/web/dist/.build-stamp',
  },
  {
    workspace: '@kegel/api',
    inputs: [
      'apps/api/src',
      'apps/api/build.mjs',
      'apps/api/inlined-packages.mjs',
      'apps/api/package.json',
      // The sandboxes are bundled into the API's build (files of their own, loaded on demand).
      'packages/sandbox/src',
      'packages/sandbox/package.json',
      ...shared,
    ],
    stamp: 'apps/api/dist/.build-stamp',
  },
];

function* filesUnder(relative) {
  const full = path.join(root, relative);
  if (!existsSync(full)) return;
  if (statSync(full).isFile()) {
    yield relative;
    return;
  }
  for (const entry of readdirSync(full, { withFileTypes: true })) {
    yield* filesUnder(path.join(relative, entry.name));
  }
}

function hashInputs(inputs) {
  const hash = createHash('sha256');
  // Build-time settings of the web app (VITE_*) change its output too.
  for (const [name, value] of Object.entries(process.env).sort()) {
    if (name.startsWith('VITE_')) hash.update(`${name}=${value}\n`);
  }
  for (const file of inputs.flatMap((input) => [...filesUnder(input)]).sort()) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(path.join(root, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

for (const target of targets) {
  const stampFile = path.join(root, target.stamp);
  const inputsHash = hashInputs(target.inputs);
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === inputsHash) continue;
  console.log(`Building ${target.workspace}...`);
  const result = spawnSync('npm', ['run', 'build', '--workspace', target.workspace], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    console.error(`Build of ${target.workspace} failed (exit code ${result.status}).`);
    process.exit(1);
  }
  writeFileSync(stampFile, inputsHash);
}

// `--build-only`: what `npm test` runs beside the type checks, so the end-to-end part starts at once.
if (process.argv.includes('--build-only')) process.exit(0);

// Stack traces in the sources' terms while developing. In production as the image runs it
// (Dockerfile): every loaded file's map would be kept for the process's life, about 5 MB of an idle
// server; NODE_OPTIONS=--enable-source-maps asks for them there.
if (process.env.NODE_ENV !== 'production') process.setSourceMapsEnabled(true);
await import(pathToFileURL(path.join(root, 'apps/api/dist/main.js')).href);
