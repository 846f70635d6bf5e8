// Resident memory (RSS) of the server when idle: its first start on an empty DATA_DIR (initdb and
// every migration), a later start on the same directory, and a reference that is nothing but
// Fastify and PGlite from the same node_modules. Linux only (reads /proc/<pid>/status).
//
// Usage: node scripts/bench/memory.mjs [--rounds 2] [--idle 10]
// The builds are brought up to date first (`scripts/start.mjs --build-only`), so no start below
// builds anything. `npm start` runs the server inside the process it starts (start.mjs imports
// apps/api/dist/main.js), so the process measured is the one spawned here.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '2' }, idle: { type: 'string', default: '10' } },
});
const rounds = Number(values.rounds);
const idleMs = Number(values.idle) * 1000;

// What the issue calls the minimal server: PGlite on a directory and Fastify answering one route.
const REFERENCE_PROGRAM = `
const { PGlite } = await import(process.argv[1]);
const { default: Fastify } = await import(process.argv[2]);
const pglite = await PGlite.create(process.env.DATA_DIR);
await pglite.query('select 1');
const app = Fastify();
app.get('/api/health', async () => ({ status: 'ok' }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
process.on('SIGINT', async () => { await app.close(); await pglite.close(); process.exit(0); });
`;
const apiDir = path.join(root, 'apps/api');
const resolveFromApi = (name) =>
  import.meta.resolve(name, new URL(`file://${apiDir}/package.json`));

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function statusKb(pid, field) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)[1]);
}

/** Starts a server, waits for /api/health and then the idle time, reads its memory, stops it. */
async function measure(args, dataDir) {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited early:\n${stderr}`);
    const answered = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) break;
    if (Date.now() - started > 180_000) throw new Error(`no answer in 180 s:\n${stderr}`);
    await sleep(100);
  }
  const readyMs = Date.now() - started;
  await sleep(idleMs);
  const rssMb = statusKb(child.pid, 'VmRSS') / 1024;
  const peakMb = statusKb(child.pid, 'VmHWM') / 1024;
  child.kill('SIGINT');
  await exited;
  return { readyMs, rssMb, peakMb };
}

const build = spawnSync(process.execPath, ['scripts/start.mjs', '--build-only'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);

const product = ['scripts/start.mjs'];
const reference = [
  '--input-type=module',
  '--eval',
  REFERENCE_PROGRAM,
  resolveFromApi('@electric-sql/pglite'),
  resolveFromApi('fastify'),
];
const cases = [
  ['first start (empty DATA_DIR)', product, 'fresh'],
  ['later start', product, 'same'],
  ['reference, empty dir', reference, 'fresh'],
  ['reference, later start', reference, 'same'],
];

const results = new Map(cases.map(([label]) => [label, []]));
const scratch = mkdtempSync(path.join(tmpdir(), 'kegel-bench-memory-'));
try {
  for (let round = 1; round <= rounds; round += 1) {
    let dataDir;
    for (const [label, args, dir] of cases) {
      if (dir === 'fresh') dataDir = path.join(scratch, `${round}-${results.get(label).length}`);
      const result = await measure(args, dataDir);
      results.get(label).push(result);
      console.error(
        `round ${round}, ${label}: ${result.rssMb.toFixed(0)} MB (ready in ${result.readyMs} ms)`,
      );
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const median = (numbers) => {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const referenceRss = median(results.get('reference, later start').map((r) => r.rssMb));
const rows = [...results].map(([label, runs]) => {
  const rss = median(runs.map((r) => r.rssMb));
  return {
    case: label,
    'idle RSS MB': Math.round(rss),
    'peak RSS MB': Math.round(median(runs.map((r) => r.peakMb))),
    'x reference': (rss / referenceRss).toFixed(2),
    'ready ms': Math.round(median(runs.map((r) => r.readyMs))),
    'RSS of each run': runs.map((r) => Math.round(r.rssMb)).join(' '),
  };
});
console.log(`\nMedian of ${rounds} round(s), after ${idleMs / 1000} s idle:`);
console.table(rows);
