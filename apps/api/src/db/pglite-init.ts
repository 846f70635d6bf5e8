// The first start on an empty DATA_DIR runs PostgreSQL's initdb, which PGlite does in a second
// WebAssembly instance inside the process that opens the directory. That instance's memory and
// initdb's copies of it stay reachable for as long as the opening instance lives, and WebAssembly
// memory never shrinks: the server held about 850 MB for its whole life after a first start,
// against about 400 MB after any later one (a bare PGlite on an empty directory shows the same
// 430 MB). Closing and reopening PGlite in the same process, or running initdb in a worker thread,
// still left some 100 MB more than a later start. So initdb runs in a short-lived child process,
// whose memory goes back to the system when it exits, and the server then opens the finished
// directory exactly as it does on every later start. scripts/bench/memory.mjs measures both.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { PGlite, type PGliteOptions } from '@electric-sql/pglite';

/**
 * How PGlite is opened, by the server and by the initdb child alike. PGlite keeps PostgreSQL's
 * default of 128 MB of shared buffers, made for a server of many connections, and inside the
 * process they are WebAssembly memory that is written at start and never given back: with them
 * the server idled near 390 MB, with 32 MB near 290 MB (scripts/bench/memory.mjs). PGlite is one
 * connection in one process, and a page that is not in its buffers is read from DATA_DIR's files,
 * which the operating system caches anyway; 32 MB (4096 pages) still holds the whole of a small
 * deployment's tables and indexes. A larger one belongs on PostgreSQL (DATABASE_URL), whose
 * settings are its own. Later start parameters win, so PGlite's defaults stay as they are.
 */
export const PGLITE_OPTIONS = {
  startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'],
} satisfies PGliteOptions;

/**
 * The child's program: arguments are the path of PGlite's module, the directory and the options
 * (PGLITE_OPTIONS as JSON). CommonJS
 * because a path is what `require.resolve` gives everywhere (vitest's module runner has no
 * `import.meta.resolve`); it is the same PGlite as the server's ESM import. It exits when the
 * server that started it is gone (its IPC channel closes): it writes under that server's lock on
 * the directory, and a lock must not outlive its holder.
 */
const INITIALISE_PROGRAM = `
process.on('disconnect', () => process.exit(1));
const [modulePath, dataDir, options] = process.argv.slice(1);
const { PGlite } = require(modulePath);
PGlite.create(dataDir, JSON.parse(options))
  .then((pglite) => pglite.close())
  .then(
    () => process.exit(0),
    (error) => {
      // Emscripten's file system throws plain objects: { name: 'ErrnoError', errno }.
      process.stderr.write(error instanceof Error ? String(error.stack) : JSON.stringify(error));
      process.exit(1);
    },
  );
`;

/** PGlite's own test for a directory that holds a database (it runs initdb when it is missing). */
export function holdsPgliteDatabase(dataDir: string): boolean {
  return existsSync(path.join(dataDir, 'PG_VERSION'));
}

/**
 * Creates the database files in an empty PGlite directory (initdb) from a child process. The
 * caller holds the directory's lock. PGlite is opened with the same options as the server opens it
 * (PGLITE_OPTIONS), so what the child writes is what the server would have written itself.
 */
export async function initialisePgliteDirectory(dataDir: string): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      '--eval',
      INITIALISE_PROGRAM,
      createRequire(import.meta.url).resolve('@electric-sql/pglite'),
      dataDir,
      JSON.stringify(PGLITE_OPTIONS),
    ],
    { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    // The end says what went wrong; a long PostgreSQL log before it does not.
    stderr = (stderr + chunk).slice(-4000);
  });
  const { code, signal } = await new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
  }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal }));
  });
  if (code !== 0) {
    const how = signal ? `was ended by ${signal}` : `exited with code ${code}`;
    throw new Error(
      `could not create the database in ${dataDir}: initdb's process ${how}${stderr.trim() ? `: ${stderr.trim()}` : ''}`,
    );
  }
}
