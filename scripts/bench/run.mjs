// `npm run bench`: every figure of issue 30 from one run, each beside its reference measured in
// the same run, with the machine's load average. First the product beside a same-shape reference
// server (reference-server.mjs), in interleaved rounds, as one table of ratios; then the benches
// of their own scripts, one after the other, their tables after it.
//
//   npm run bench                                   PGlite (a fresh data directory)
//   DATABASE_URL=postgres://… REDIS_URL=redis://… npm run bench
//                                                   PostgreSQL as well, and memory in production
//   BENCH_SCALE_URL=… BENCH_EMPTY_URL=… npm run bench   the million members too (seed-scale.mjs)
//   BENCH_PARTS=sign-in,pages npm run bench         some parts only (names below)
//   BENCH_ROUNDS=5 BENCH_SECONDS=15 npm run bench   longer (defaults: 3 rounds of 10 s)
//
// The parts, each on the built product (`node scripts/start.mjs --build-only` first):
// - profile: GET /api/users/profile at 50 connections, product and reference in turn,
//   `BENCH_ROUNDS` rounds; medians of requests/s and of p99.
// - sign-in: raw argon2id verifications per second, 10 at once in this process (the product's
//   library and parameters), against successful logins per second through the product's HTTP
//   route at 10 connections; and the CPU each login took, thread by thread, with the PostgreSQL
//   and Redis server processes' share beside it.
// - storm: profile p97.5 at a steady 200 requests/s alone, then while 200 members sign in
//   at once (`BENCH_ROUNDS` storms, medians), and where the CPU went during them. The sign-ins
//   come from a process of their own (sign-in-storm.mjs), not from the one timing the profile.
// - memory: the product's RSS, idle, on the first start of a fresh data directory and on a later
//   start of the same one (PGlite), against the reference's.
// - pages (lighthouse.mjs), interactions (interactions.mjs), production-memory
//   (production-memory.mjs, with DATABASE_URL and REDIS_URL) and scale (scale.mjs, with the two
//   seeded databases): see each script's header.
// The machine's load average is printed: these figures mean little on a busy machine.
import { spawn, spawnSync } from 'node:child_process';
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
/** Sign-ins in flight at once, and raw verifications at the same concurrency (issue 30). */
const SIGN_IN_CONNECTIONS = 10;
const STORM_PROFILE_RATE = 200;
const TOKEN_SECRET = 'bench-token-secret-that-is-long-enough-0123456789abcdef';
const PASSWORD = 'correct horse battery staple';
const PRODUCT_PORT = 4711;
const REFERENCE_PORT = 4712;
const cores = availableParallelism();
/**
 * What to measure (`BENCH_PARTS=sign-in,pages`, say); everything by default. This script's own:
 * profile, sign-in, storm, memory; then the benches of their own scripts, run one after the other
 * from here (`CHILD_BENCHES`): pages, interactions, production-memory, scale.
 */
const ALL_PARTS = [
  'profile',
  'sign-in',
  'storm',
  'memory',
  'pages',
  'interactions',
  'production-memory',
  'scale',
];
const PARTS = new Set(
  (process.env.BENCH_PARTS ?? ALL_PARTS.join(',')).split(',').map((part) => part.trim()),
);
for (const part of PARTS) {
  if (!ALL_PARTS.includes(part)) throw new Error(`BENCH_PARTS: no part named ${part}`);
}
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
 * Raw argon2id verifications per second at SIGN_IN_CONNECTIONS at once: the product's library and
 * parameters, that many verifications always in flight (the library's asynchronous verify, on
 * libuv's threads), in this process with nothing else running: what the machine can verify.
 */
async function rawArgon2PerSecond() {
  const argon2 = require(argon2Path);
  const options = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 };
  const hash = await argon2.hash(PASSWORD, options);
  const until = performance.now() + SECONDS * 1000;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SIGN_IN_CONNECTIONS }, async () => {
      while (performance.now() < until) {
        if (!(await argon2.verify(hash, PASSWORD))) throw new Error('argon2: wrong verification');
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

/**
 * Successful logins per second through HTTP at SIGN_IN_CONNECTIONS connections, members in turn
 * (a member's checks queue), and where the CPU went per login: the product's event loop, its
 * other threads (hashing above all), and this process sending them.
 */
async function loginsPerSecond(productPid, emails, seconds = SECONDS) {
  let next = 0;
  // Read first: the /proc scan's own CPU must not count as the load generator's.
  const serversBefore = dataServersCpuMs();
  const threadsBefore = threadCpuMs(productPid);
  const loadBefore = process.cpuUsage();
  const result = await run({
    url: `http://127.0.0.1:${PRODUCT_PORT}/api/auth/local/login/email`,
    method: 'POST',
    connections: SIGN_IN_CONNECTIONS,
    duration: seconds,
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
  const { user, system } = process.cpuUsage(loadBefore);
  const product = cpuSplit(productPid, threadsBefore, threadCpuMs(productPid));
  const serversAfter = dataServersCpuMs();
  const servers = cpuSpentSince(serversBefore, serversAfter);
  const logins = result.requests.total;
  return {
    perSecond: logins / seconds,
    cpuPerLogin: {
      eventLoop: product.eventLoop / logins,
      otherThreads: product.otherThreads / logins,
      loadGenerator: (user + system) / 1000 / logins,
      postgres: servers.postgres / logins,
      redis: servers.redis / logins,
    },
    serversSeen: new Set([...serversAfter.values()].map(({ kind }) => kind)),
  };
}

/**
 * Raw verifications and logins in turn, `ROUNDS` rounds (the order swapped each round), so that a
 * change in the machine's load falls on both: medians of each, and of each round's ratio.
 */
async function signInRounds(productPid, emails) {
  await loginsPerSecond(productPid, emails, 2); // warm-up
  const rounds = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    let raw;
    let logins;
    if (round % 2 === 0) {
      raw = await rawArgon2PerSecond();
      logins = await loginsPerSecond(productPid, emails);
    } else {
      logins = await loginsPerSecond(productPid, emails);
      raw = await rawArgon2PerSecond();
    }
    rounds.push({ raw, logins });
  }
  const medianOf = (pick) => median(rounds.map(pick));
  return {
    rawArgon2: medianOf((round) => round.raw),
    logins: {
      perSecond: medianOf((round) => round.logins.perSecond),
      ratio: medianOf((round) => round.logins.perSecond / round.raw),
      ratios: rounds.map((round) => round.logins.perSecond / round.raw),
      cpuPerLogin: Object.fromEntries(
        Object.keys(rounds[0].logins.cpuPerLogin).map((key) => [
          key,
          medianOf((round) => round.logins.cpuPerLogin[key]),
        ]),
      ),
      serversSeen: rounds[0].logins.serversSeen,
    },
  };
}

/** CPU time (ms) of each thread of a process on Linux: its event loop is the thread whose id is its pid. */
function threadCpuMs(pid) {
  const perThread = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    perThread.set(Number(tid), cpuMsOfStat(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')));
  }
  return perThread;
}

/** The CPU time (ms) a /proc `stat` line reports: user and system time, in ticks of 10 ms. */
function cpuMsOfStat(stat) {
  // Fields after the command name: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // USER_HZ, 100 on Linux
}

/**
 * CPU time (ms) of each PostgreSQL and Redis server process on this machine, by pid: they share
 * its cores with the product, and a sign-in's statements and commands cost CPU there too. Linux;
 * processes of other users are read as well (their /proc stat is readable).
 */
function dataServersCpuMs() {
  const perProcess = new Map();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const kind = command.startsWith('postgres')
        ? 'postgres'
        : command.startsWith('redis-server')
          ? 'redis'
          : undefined;
      if (!kind) continue;
      perProcess.set(pid, { kind, ms: cpuMsOfStat(stat) });
    } catch {
      // The process ended while the list was read.
    }
  }
  return perProcess;
}

/**
 * CPU the data servers spent between two readings. A backend that started meanwhile counts from
 * zero; one that ended meanwhile is lost (the product's pool keeps its connections while busy).
 */
function cpuSpentSince(before, after) {
  const spent = { postgres: 0, redis: 0 };
  for (const [pid, { kind, ms }] of after) spent[kind] += ms - (before.get(pid)?.ms ?? 0);
  return spent;
}

/** CPU time (ms) of a whole process on Linux. */
function processCpuMs(pid) {
  return cpuMsOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
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
    if (PARTS.has('profile')) {
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
    }
    if (PARTS.has('sign-in')) {
      console.error(`${name}: sign-in, raw verifications and logins in turn, ${ROUNDS} rounds…`);
      Object.assign(results, await signInRounds(product.pid, stormEmails));
    }
    if (name === 'PGlite' && PARTS.has('storm')) {
      console.error(`${name}: the storm…`);
      results.storm = await storms(product.pid, accessToken, stormEmails);
    }
  } finally {
    await stopProcess(product);
  }
  if (name === 'PGlite' && PARTS.has('memory')) {
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

/**
 * The benches of their own scripts, in this run, one after the other (each starts and stops what
 * it measures): their output is kept and printed after this script's table. One that cannot run
 * here (no PostgreSQL or Redis named, no seeded database) says so instead of a figure.
 */
const CHILD_BENCHES = [
  {
    part: 'pages',
    title: 'First pages: Lighthouse beside the reference page (point 1)',
    script: 'lighthouse.mjs',
    args: () => ['--runs', String(ROUNDS)],
  },
  {
    part: 'interactions',
    title: 'Interactions: INP beside the reference page (point 2)',
    script: 'interactions.mjs',
    args: () => ['--rounds', String(ROUNDS)],
  },
  {
    part: 'production-memory',
    title: 'Memory in production beside a bare Fastify + pg + ioredis server (point 4)',
    script: 'production-memory.mjs',
    args: () =>
      process.env.DATABASE_URL && process.env.REDIS_URL
        ? [
            '--database-url',
            process.env.DATABASE_URL,
            '--redis-url',
            process.env.REDIS_URL,
            '--rounds',
            String(ROUNDS),
          ]
        : undefined,
    unless: 'needs DATABASE_URL (a scratch database) and REDIS_URL',
  },
  {
    part: 'scale',
    title: 'Flat at a million members: the same calls on an empty and a seeded database (point 3)',
    script: 'scale.mjs',
    args: () => (process.env.BENCH_SCALE_URL && process.env.BENCH_EMPTY_URL ? [] : undefined),
    unless:
      'needs BENCH_SCALE_URL and BENCH_EMPTY_URL, databases seeded by seed-scale.mjs (docs/benchmarks/scale.md)',
  },
];

async function runChildBenches() {
  const reports = [];
  for (const bench of CHILD_BENCHES) {
    if (!PARTS.has(bench.part)) continue;
    const args = bench.args();
    if (!args) {
      reports.push({ title: bench.title, output: `Not measured in this run: ${bench.unless}.` });
      continue;
    }
    console.error(`${bench.part}: ${bench.script}…`);
    const loadAtStart = load();
    const child = spawn(
      process.execPath,
      [path.join(root, 'scripts/bench', bench.script), ...args],
      {
        cwd: root,
        env: baseEnv,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      output += chunk;
      process.stderr.write(chunk);
    });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    reports.push({
      title: bench.title,
      output:
        `Load average at its start: ${loadAtStart}\n\n${output}` +
        (code === 0 ? '' : `\n${bench.script} failed (exit code ${code}).`),
    });
  }
  return reports;
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
const OWN_PARTS = ['profile', 'sign-in', 'storm', 'memory'];
const suites = [];
if (OWN_PARTS.some((part) => PARTS.has(part))) {
  suites.push(await suite('PGlite', {}));
  if (process.env.DATABASE_URL) {
    suites.push(await suite('PostgreSQL', { DATABASE_URL: process.env.DATABASE_URL }));
  }
}
const loadAfterServer = load();
const childReports = await runChildBenches();

const rows = [['what', 'reference', 'product', 'ratio', 'goal']];
for (const result of suites) {
  if (!result.profile) continue;
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
for (const result of suites) {
  if (!result.logins) continue;
  rows.push([
    `logins/s through HTTP vs raw argon2id verifications/s, ${SIGN_IN_CONNECTIONS} at once, ${result.name}`,
    result.rawArgon2.toFixed(1),
    result.logins.perSecond.toFixed(1),
    `${percent(result.logins.ratio)} (${result.logins.ratios.map(percent).join(', ')})`,
    '≥ 75 %',
  ]);
}
const [pglite = {}] = suites;
if (pglite.storm) {
  rows.push([
    `profile p97.5 at ${STORM_PROFILE_RATE} req/s (ms), alone vs during ${STORM_LOGINS} logins at once, PGlite`,
    String(pglite.storm.alone),
    String(pglite.storm.during),
    `${(pglite.storm.during / pglite.storm.alone).toFixed(2)} ×`,
    '≤ 2 ×',
  ]);
  rows.push([
    'logins/s during the storm vs raw argon2id/s',
    pglite.rawArgon2?.toFixed(1) ?? '-',
    pglite.storm.loginsPerSecond.toFixed(1),
    pglite.rawArgon2 ? percent(pglite.storm.loginsPerSecond / pglite.rawArgon2) : '-',
    '≥ 60 %',
  ]);
}
if (pglite.firstStartRss) {
  for (const [label, key] of [
    ['first start', 'firstStartRss'],
    ['later start', 'laterStartRss'],
  ]) {
    rows.push([
      `RSS idle, PGlite: reference vs product ${label} (MB)`,
      pglite.referenceRss ? number(pglite.referenceRss) : '-',
      number(pglite[key]),
      pglite.referenceRss ? `${(pglite[key] / pglite.referenceRss).toFixed(2)} ×` : '-',
      '≤ 1.2 ×',
    ]);
  }
}

const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
const line = (row) => `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
if (suites.length > 0) {
  console.log(`\n## The server, beside a same-shape reference server`);
  console.log(`\n${cores} cores; load average before ${loadBefore}, after ${loadAfterServer}`);
  console.log(`${ROUNDS} rounds of ${SECONDS} s, medians\n`);
  console.log(line(rows[0]));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const row of rows.slice(1)) console.log(line(row));
}

const { storm } = pglite;
if (storm) {
  const perLogin = (ms) => (ms / STORM_LOGINS).toFixed(1);
  console.log(
    [
      `\nWhere the ${cores} cores went during a storm (medians; ${Math.round(storm.milliseconds)} ms, ` +
        `${Math.round(storm.milliseconds * cores)} ms of CPU), per login:`,
      `  the product's event loop ${perLogin(storm.eventLoop)} ms (its ${STORM_PROFILE_RATE} req/s of profile included)`,
      `  the product's other threads (hashing, V8's helpers) ${perLogin(storm.otherThreads)} ms`,
      `  the load generator (this process and the sign-ins' own), on the same cores ${perLogin(storm.loadGenerator)} ms`,
      pglite.rawArgon2
        ? `  raw argon2id: ${((1000 * cores) / pglite.rawArgon2).toFixed(1)} ms of CPU per verification`
        : '',
    ].join('\n'),
  );
}
for (const result of suites) {
  if (!result.logins) continue;
  const { cpuPerLogin, serversSeen } = result.logins;
  // PostgreSQL's processes serve the PostgreSQL suite only; Redis serves both when REDIS_URL is set.
  const dataServer = (kind, label, ms) =>
    serversSeen.has(kind)
      ? `  ${label} ${ms.toFixed(1)} ms (all of its processes on this machine)`
      : `  ${label}: none seen on this machine (another host's CPU is not counted)`;
  console.log(
    [
      `\nCPU per login at ${SIGN_IN_CONNECTIONS} connections, ${result.name} (no storm):`,
      `  the product's event loop ${cpuPerLogin.eventLoop.toFixed(1)} ms`,
      `  the product's other threads (hashing, V8's helpers) ${cpuPerLogin.otherThreads.toFixed(1)} ms`,
      `  the load generator (this process) ${cpuPerLogin.loadGenerator.toFixed(1)} ms`,
      result.name === 'PostgreSQL'
        ? dataServer('postgres', "PostgreSQL's server processes", cpuPerLogin.postgres)
        : '',
      process.env.REDIS_URL ? dataServer('redis', "Redis's server", cpuPerLogin.redis) : '',
      `  raw argon2id: ${((1000 * cores) / result.rawArgon2).toFixed(1)} ms of CPU per verification`,
    ]
      .filter(Boolean)
      .join('\n'),
  );
}
for (const report of childReports) {
  console.log(`\n## ${report.title}\n`);
  console.log(report.output.trim());
}
console.log(`\nLoad average at the end: ${load()}`);
