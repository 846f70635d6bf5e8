// `npm run bench`: the product beside a same-shape reference server (reference-server.mjs), on
// this machine, in interleaved rounds, and one table of ratios against the goals of issue 16.
//
//   npm run bench                                   PGlite (a fresh data directory)
//   DATABASE_URL=postgres://… npm run bench         PGlite, then PostgreSQL as well
//   BENCH_ROUNDS=5 BENCH_SECONDS=15 npm run bench   longer (defaults: 3 rounds of 10 s)
//
// What it runs, each on the built product (`node scripts/start.mjs --build-only` first):
// - GET /api/users/profile at 50 connections, product and reference in turn, `BENCH_ROUNDS`
//   rounds; medians of requests/s and of p99.
// - Sign-in: raw argon2id verifications per second in this process (one per core at once, the
//   product's parameters), against successful logins per second through the product's HTTP route.
// - The storm: profile p97.5 at a steady 200 requests/s alone, then while 200 members sign in
//   at once (`BENCH_ROUNDS` storms, medians), and where the CPU went during them. The sign-ins
//   come from a process of their own (sign-in-storm.mjs), not from the one timing the profile.
// - Memory: the product's RSS, idle, on the first start of a fresh data directory and on a later
//   start of the same one (PGlite), against the reference's.
// The machine's load average is printed: these figures mean little on a busy machine.
import { spawn, spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  callApi,
  loadAverage as load,
  median,
  sleep,
  stopProcess,
  waitForHealth,
} from './support.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(path.join(root, 'apps/api/package.json'));
const autocannon = require('autocannon');
const argon2Path = require.resolve('@node-rs/argon2');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const STORM_LOGINS = 200;
const STORM_PROFILE_RATE = 200;
const TOKEN_SECRET = 'bench-token-secret-that-is-long-enough-0123456789abcdef';
const PASSWORD = 'correct horse battery staple';
const PRODUCT_PORT = 4711;
const REFERENCE_PORT = 4712;
const cores = availableParallelism();
const PRODUCT_URL = `http://127.0.0.1:${PRODUCT_PORT}`;

/** This process's environment without a database: each suite names its own. */
// No balancer in front of the product here: a stop (SIGTERM) need not drain.
const baseEnv = { ...process.env, SHUTDOWN_DRAIN_SECONDS: '0' };
delete baseEnv.DATABASE_URL;
function rssMegabytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

/** The product as `npm start` runs it, with the sign-in budgets lifted for the run. */
async function startProduct(env) {
  const child = spawn(process.execPath, [path.join(root, 'apps/api/dist/main.js')], {
    cwd: root,
    env: {
      ...baseEnv,
      PORT: String(PRODUCT_PORT),
      TOKEN_SECRET,
      AUTH_REQUESTS_PER_MINUTE: '100000000',
      AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR: '100000000',
      REGISTRATIONS_PER_ADDRESS_PER_HOUR: '100000000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitForHealth(PRODUCT_URL);
  return child;
}

async function startReference(env) {
  const child = spawn(process.execPath, [path.join(root, 'scripts/bench/reference-server.mjs')], {
    cwd: root,
    env: { ...baseEnv, REFERENCE_PORT: String(REFERENCE_PORT), TOKEN_SECRET, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`reference server exited (${code})`)));
  });
  return child;
}

function run(options) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) =>
      error ? reject(error) : resolve(result),
    );
    options.onInstance?.(instance);
  });
}

function profileLoad(port, accessToken, connections, duration, overallRate) {
  return {
    url: `http://127.0.0.1:${port}/api/users/profile`,
    headers: { authorization: `Bearer ${accessToken}` },
    connections,
    duration,
    ...(overallRate ? { overallRate } : {}),
  };
}

function checkOk(result, label) {
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return result;
}

/** Profile throughput and p99, product against reference, interleaved. */
async function profileRounds(accessToken) {
  const rows = { reference: [], product: [] };
  const ports = { reference: REFERENCE_PORT, product: PRODUCT_PORT };
  for (const name of ['reference', 'product']) {
    await run(profileLoad(ports[name], accessToken, 50, 2)); // warm-up
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? ['reference', 'product'] : ['product', 'reference'];
    for (const name of order) {
      const result = checkOk(
        await run(profileLoad(ports[name], accessToken, 50, SECONDS)),
        `profile on ${name}`,
      );
      rows[name].push({ rps: result.requests.average, p99: result.latency.p99 });
    }
  }
  const summary = (list) => ({
    rps: median(list.map((row) => row.rps)),
    p99: median(list.map((row) => row.p99)),
  });
  return { reference: summary(rows.reference), product: summary(rows.product) };
}

/**
 * Raw argon2id verifications per second: the product's library and parameters, one thread per
 * core verifying without pause, at normal priority, nothing else running.
 */
async function rawArgon2PerSecond() {
  const thread = `
    const { parentPort, workerData } = require('node:worker_threads');
    const argon2 = require(workerData.argon2Path);
    const options = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 };
    const hash = argon2.hashSync(workerData.password, options);
    let done = 0;
    const until = Date.now() + workerData.seconds * 1000;
    while (Date.now() < until) {
      argon2.verifySync(hash, workerData.password);
      done += 1;
    }
    parentPort.postMessage(done);
  `;
  const started = performance.now();
  const counts = await Promise.all(
    Array.from(
      { length: cores },
      () =>
        new Promise((resolve, reject) => {
          const worker = new Worker(thread, {
            eval: true,
            workerData: { argon2Path, password: PASSWORD, seconds: SECONDS },
          });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
  return counts.reduce((sum, count) => sum + count, 0) / ((performance.now() - started) / 1000);
}

/** Successful logins per second through HTTP, members in turn (a member's checks queue). */
async function loginsPerSecond(emails) {
  let next = 0;
  const result = await run({
    url: `http://127.0.0.1:${PRODUCT_PORT}/api/auth/local/login/email`,
    method: 'POST',
    connections: cores * 4,
    duration: SECONDS,
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        setupRequest(request) {
          const email = emails[next % emails.length];
          next += 1;
          return { ...request, body: JSON.stringify({ email, password: PASSWORD }) };
        },
      },
    ],
  });
  checkOk(result, 'login');
  return result.requests.total / SECONDS;
}

/** CPU time (ms) of each thread of a process on Linux: its event loop is the thread whose id is its pid. */
function threadCpuMs(pid) {
  const clockTicksPerMs = 100 / 1000; // USER_HZ, 100 on Linux
  const perThread = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // Fields after the command name: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    perThread.set(Number(tid), (Number(fields[11]) + Number(fields[12])) / clockTicksPerMs);
  }
  return perThread;
}

/** CPU time (ms) of a whole process on Linux. */
function processCpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // USER_HZ, 100 on Linux
}

/** The storm's sign-ins in a process of their own (sign-in-storm.mjs), ready to go. */
async function startSignInStorm(emails) {
  const child = spawn(
    process.execPath,
    [
      path.join(root, 'scripts/bench/sign-in-storm.mjs'),
      JSON.stringify({ port: PRODUCT_PORT, emails, password: PASSWORD }),
    ],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  await new Promise((resolve) => child.once('message', resolve));
  return {
    child,
    run: () =>
      new Promise((resolve, reject) => {
        child.once('message', (answer) =>
          answer.error ? reject(new Error(answer.error)) : resolve(),
        );
        child.send('go');
      }),
  };
}

/** Where the CPU went between two `threadCpuMs` readings of the product. */
function cpuSplit(pid, before, after) {
  let eventLoop = 0;
  let otherThreads = 0;
  for (const [tid, ms] of after) {
    const spent = ms - (before.get(tid) ?? 0);
    if (tid === pid) eventLoop += spent;
    else otherThreads += spent;
  }
  return { eventLoop, otherThreads };
}

/**
 * Profile p97.5 under a steady STORM_PROFILE_RATE requests/s (members using the app), alone and
 * while STORM_LOGINS members sign in at once; `ROUNDS` storms, medians. With it, where the two
 * cores went during the storms: the product's event loop, its other threads (hashing, V8's
 * helpers) and this process (the load), which shares the machine with it.
 */
async function storms(productPid, accessToken, emails) {
  const rounds = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const alone = checkOk(
      await run(profileLoad(PRODUCT_PORT, accessToken, 10, SECONDS, STORM_PROFILE_RATE)),
      'profile alone',
    );
    let instance;
    const during = run({
      ...profileLoad(PRODUCT_PORT, accessToken, 10, 600, STORM_PROFILE_RATE),
      onInstance: (started) => {
        instance = started;
      },
    });
    const signIns = await startSignInStorm(emails.slice(0, STORM_LOGINS));
    await sleep(500);
    const threadsBefore = threadCpuMs(productPid);
    const loadBefore = process.cpuUsage();
    const signInsBefore = processCpuMs(signIns.child.pid);
    const started = performance.now();
    await signIns.run();
    const milliseconds = performance.now() - started;
    const { user, system } = process.cpuUsage(loadBefore);
    const signInsCpu = processCpuMs(signIns.child.pid) - signInsBefore;
    const product = cpuSplit(productPid, threadsBefore, threadCpuMs(productPid));
    instance.stop();
    await stopProcess(signIns.child);
    const result = checkOk(await during, 'profile during the storm');
    rounds.push({
      alone: alone.latency.p97_5,
      during: result.latency.p97_5,
      loginsPerSecond: STORM_LOGINS / (milliseconds / 1000),
      milliseconds,
      ...product,
      loadGenerator: (user + system) / 1000 + signInsCpu,
    });
  }
  const medianOf = (key) => median(rounds.map((round) => round[key]));
  return Object.fromEntries(Object.keys(rounds[0]).map((key) => [key, medianOf(key)]));
}

async function registerMembers(count) {
  const stamp = Date.now().toString(36);
  const emails = Array.from({ length: count }, (_, index) => `bench.${stamp}.${index}@example.com`);
  // A few at a time: each registration hashes a password.
  for (let index = 0; index < emails.length; index += cores * 2) {
    await Promise.all(
      emails
        .slice(index, index + cores * 2)
        .map((email) =>
          callApi(PRODUCT_URL, 'POST', '/auth/local/register/email', { email, password: PASSWORD }),
        ),
    );
  }
  return emails;
}

async function suite(name, databaseEnv) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kegel-bench-'));
  const product = await startProduct({ DATA_DIR: dataDir, ...databaseEnv });
  const results = { name };
  try {
    const emails = await registerMembers(STORM_LOGINS + 1);
    const [memberEmail, ...stormEmails] = emails;
    const { accessToken } = await callApi(PRODUCT_URL, 'POST', '/auth/local/login/email', {
      email: memberEmail,
      password: PASSWORD,
    });
    const member = await callApi(PRODUCT_URL, 'GET', '/users/profile', undefined, accessToken);
    const reference = await startReference({
      ...databaseEnv,
      REFERENCE_MEMBER: JSON.stringify({ id: member.id, email: member.email }),
    });
    try {
      // Idle, as the product's is measured below.
      await sleep(5000);
      results.referenceRss = rssMegabytes(reference.pid);
      console.error(`${name}: profile, ${ROUNDS} interleaved rounds of ${SECONDS} s…`);
      results.profile = await profileRounds(accessToken);
    } finally {
      await stopProcess(reference);
    }
    if (name === 'PGlite') {
      console.error(`${name}: sign-in and the storm…`);
      results.rawArgon2 = await rawArgon2PerSecond();
      results.logins = await loginsPerSecond(stormEmails);
      results.storm = await storms(product.pid, accessToken, stormEmails);
    }
  } finally {
    await stopProcess(product);
  }
  if (name === 'PGlite') {
    // Memory: a fresh data directory's first start, and a later start of the same one, idle.
    console.error(`${name}: memory…`);
    const fresh = mkdtempSync(path.join(tmpdir(), 'kegel-bench-fresh-'));
    for (const label of ['firstStartRss', 'laterStartRss']) {
      const started = await startProduct({ DATA_DIR: fresh });
      await sleep(5000);
      results[label] = rssMegabytes(started.pid);
      await stopProcess(started);
    }
    rmSync(fresh, { recursive: true, force: true });
  }
  rmSync(dataDir, { recursive: true, force: true });
  return results;
}

const percent = (value) => `${Math.round(value * 100)} %`;
const number = (value) => Math.round(value).toLocaleString('en-US');

console.error('Building (skipped when the build is current)…');
const build = spawnSync(process.execPath, [path.join(root, 'scripts/start.mjs'), '--build-only'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);

const loadBefore = load();
const suites = [await suite('PGlite', {})];
if (process.env.DATABASE_URL) {
  suites.push(await suite('PostgreSQL', { DATABASE_URL: process.env.DATABASE_URL }));
}

const rows = [['what', 'reference', 'product', 'ratio', 'goal']];
for (const result of suites) {
  const { reference, product } = result.profile;
  rows.push([
    `GET /api/users/profile, ${result.name}, 50 connections (req/s)`,
    number(reference.rps),
    number(product.rps),
    percent(product.rps / reference.rps),
    '≥ 85 %',
  ]);
  rows.push([
    `p99 at 50 connections, ${result.name} (ms)`,
    String(reference.p99),
    String(product.p99),
    `${(product.p99 / reference.p99).toFixed(2)} ×`,
    '≤ 1.2 ×',
  ]);
}
const [pglite] = suites;
rows.push([
  'logins/s through HTTP vs raw argon2id verifications/s',
  pglite.rawArgon2.toFixed(1),
  pglite.logins.toFixed(1),
  percent(pglite.logins / pglite.rawArgon2),
  '≥ 60 %',
]);
rows.push([
  `profile p97.5 at ${STORM_PROFILE_RATE} req/s (ms), alone vs during ${STORM_LOGINS} logins at once, PGlite`,
  String(pglite.storm.alone),
  String(pglite.storm.during),
  `${(pglite.storm.during / pglite.storm.alone).toFixed(2)} ×`,
  '≤ 2 ×',
]);
rows.push([
  'logins/s during the storm vs raw argon2id/s',
  pglite.rawArgon2.toFixed(1),
  pglite.storm.loginsPerSecond.toFixed(1),
  percent(pglite.storm.loginsPerSecond / pglite.rawArgon2),
  '≥ 60 %',
]);
rows.push([
  'RSS idle, PGlite: reference vs product first start (MB)',
  number(pglite.referenceRss),
  number(pglite.firstStartRss),
  `${(pglite.firstStartRss / pglite.referenceRss).toFixed(2)} ×`,
  '≤ 1.2 ×',
]);
rows.push([
  'RSS idle, PGlite: reference vs product later start (MB)',
  number(pglite.referenceRss),
  number(pglite.laterStartRss),
  `${(pglite.laterStartRss / pglite.referenceRss).toFixed(2)} ×`,
  '≤ 1.2 ×',
]);

const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
const line = (row) => `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
console.log(`\n${cores} cores; load average before ${loadBefore}, after ${load()}`);
console.log(`${ROUNDS} rounds of ${SECONDS} s, medians\n`);
console.log(line(rows[0]));
console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
for (const row of rows.slice(1)) console.log(line(row));

const { storm } = pglite;
const perLogin = (ms) => (ms / STORM_LOGINS).toFixed(1);
console.log(
  [
    `\nWhere the ${cores} cores went during a storm (medians; ${Math.round(storm.milliseconds)} ms, ` +
      `${Math.round(storm.milliseconds * cores)} ms of CPU), per login:`,
    `  the product's event loop ${perLogin(storm.eventLoop)} ms (its ${STORM_PROFILE_RATE} req/s of profile included)`,
    `  the product's other threads (hashing, V8's helpers) ${perLogin(storm.otherThreads)} ms`,
    `  the load generator (this process and the sign-ins' own), on the same cores ${perLogin(storm.loadGenerator)} ms`,
    `  raw argon2id: ${((1000 * cores) / pglite.rawArgon2).toFixed(1)} ms of CPU per verification`,
  ].join('\n'),
);
