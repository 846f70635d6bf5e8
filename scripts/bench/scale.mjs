// `npm run bench:scale`: is the product flat at a million members? The built product runs once
// against a database holding one member (the bench's) and once against one seeded at scale
// (seed-scale.mjs: 1,000,000 members, 3,000,000 purchases, 10,000,000 sessions), and each call
// below is measured the same way on both: p99 and median, their ratio, the load average.
//
//   node scripts/bench/seed-scale.mjs   (DATABASE_URL=…/kegel_scale, once; SEED_MEMBERS=1 for …/kegel_empty)
//   BENCH_EMPTY_URL=postgres://…/kegel_empty BENCH_SCALE_URL=postgres://…/kegel_scale npm run bench:scale
//   BENCH_SECONDS=10 (default) per call; BENCH_CONNECTIONS=10 (default; sign-in: one per core)
//   BENCH_CALLS=webhook,pruning (say) measures only those (the keys of `calls` below, and pruning)
//
// The calls, each with the same data around it on both databases (the bench's own members, the
// same purchases for the member, the same backlog for the pruning job):
// - GET /api/users/profile and GET /api/users/subscriptions/personal (Purchase History) of
//   bench.member@example.com, who has five purchases on both;
// - a sign-in with the password (argon2id dominates it: one connection per core, the same on both);
// - a Stripe webhook granting a paid checkout (checkout.session.completed, signed with the
//   server's webhook secret), each to the next of 1,000 bench.grant.<n>@example.com members;
// - the support desk's search (GET /api/ops/members) by email prefix (`bench.grant.1`: 112
//   accounts, the first 20 answered, on both), by Checkout Session id and by App Store original
//   transaction id, as an operator (role granted by the operator command, two-step sign-in on,
//   a session opened with a code);
// - one run of the session-pruning job over a backlog of ended sessions and old sign-in events
//   (the same number on both): its time, and its longest DELETE (its row locks last that long),
//   sampled from pg_stat_activity every 5 ms.
// The Apple order id search is not measured: it asks Apple's API (here the sandbox) for the
// order's transactions and then runs the original transaction id's query, which is.
import { spawn, spawnSync } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { callApi, loadAverage as load, sleep, stopProcess, waitForHealth } from './support.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(path.join(root, 'apps/api/package.json'));
const autocannon = require('autocannon');
const pg = require('pg');
const { Secret, TOTP } = require('otpauth');

const EMPTY_URL = process.env.BENCH_EMPTY_URL ?? 'postgres://postgres@127.0.0.1:5432/kegel_empty';
const SCALE_URL = process.env.BENCH_SCALE_URL ?? 'postgres://postgres@127.0.0.1:5432/kegel_scale';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PRUNE_SESSIONS = Number(process.env.BENCH_PRUNE_SESSIONS ?? 50_000);
const PRUNE_EVENTS = 10_000;
const GRANT_MEMBERS = 1000;
const PASSWORD = 'correct horse battery staple';
const MEMBER_EMAIL = 'bench.member@example.com';
const OPERATOR_EMAIL = 'bench.operator@example.com';
const TOKEN_SECRET = 'bench-token-secret-that-is-long-enough-0123456789abcdef';
const WEBHOOK_SECRET = 'whsec_bench_scale_0123456789abcdef';
const PORT = 4713;
const BASE_URL = `http://127.0.0.1:${PORT}`;
const cores = availableParallelism();
const onlyCalls = process.env.BENCH_CALLS?.split(',');
/** Whether BENCH_CALLS asks for this call (all are measured without it). */
const wanted = (key) => !onlyCalls || onlyCalls.includes(key);
// The first purchase of member 1 is a Stripe one, the third an App Store one, on both databases.
const CHECKOUT_SESSION_SQL = `select 'cs_live_' || md5('checkout-1') as id`;
const ORIGINAL_TRANSACTION = String(2000000000000000 + 3);

const baseEnv = { ...process.env, SHUTDOWN_DRAIN_SECONDS: '0' };
delete baseEnv.DATABASE_URL;
async function query(url, text, parameters = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, parameters)).rows;
  } finally {
    await client.end();
  }
}

/**
 * What the bench needs on either database, added once: the 1,000 members the webhook grants to
 * and the operator, without his role and with two-step sign-in off (operatorSession gives him
 * both again: the bench must know the secret, and a factor added after the role closes the desk
 * for a day). Then, before every suite, the same starting point on both databases:
 * - the grant members' histories emptied: each webhook adds a purchase to one of them, and runs
 *   that stopped early or measured other calls left the two databases unequal (a scripted hour
 *   once left 58,077 purchases among them at scale against 10,274 on the empty one);
 * - the reminders up to date, as the job running every 15 minutes keeps them in service: on a
 *   database left idle since it was seeded, ends keep entering the 72 hours, and the job's first
 *   run a minute after start mailed 196 members during the windows (docs/benchmarks/scale.md,
 *   28 November). That burst is a deploy after an idle spell, measured on its own there.
 */
async function prepare(url) {
  const [member] = await query(url, 'select password_hash from users where lower(email) = $1', [
    MEMBER_EMAIL,
  ]);
  if (!member) throw new Error(`${url}: no ${MEMBER_EMAIL}; seed it with seed-scale.mjs first`);
  await query(
    url,
    `insert into users (email, password_hash)
     select 'bench.grant.' || n || '@example.com', $1 from generate_series(1, $2::int) as n
     union all select $3, $1
     on conflict do nothing`,
    [member.password_hash, GRANT_MEMBERS, OPERATOR_EMAIL],
  );
  await query(
    url,
    `delete from two_step_authenticators
     where user_id = (select id from users where lower(email) = $1)`,
    [OPERATOR_EMAIL],
  );
  operatorCommand(url, ['revoke', OPERATOR_EMAIL]);
  const members = `select id from users where email like 'bench.grant.%'`;
  // The ledger by its member's index first, then the purchases with their foreign keys' checks
  // off: each purchase's cascade would look for ledger rows by a purchase id that only grants
  // index, reading all of the ledger once per purchase (minutes at scale). The product itself
  // never deletes a purchase.
  await query(
    url,
    `begin;
     set local session_replication_role = replica;
     delete from premium_expiry_reminders where user_id in (${members});
     delete from premium_ledger where user_id in (${members});
     delete from purchases where user_id in (${members});
     update users set subscription_end_date = null where id in (${members});
     commit;`,
  );
  await query(
    url,
    `insert into premium_expiry_reminders (user_id, ends_at)
     select id, subscription_end_date from users
     where subscription_end_date > now() and subscription_end_date <= now() + interval '72 hours'
     on conflict do nothing`,
  );
}

/**
 * What autovacuum does in service, done here because the server may run without it (this
 * machine's does: autovacuum = off): each run's pruned backlog and emptied histories stayed as
 * dead rows that every later run's index scans walked (350,000 in the empty database's sessions
 * after an afternoon of runs, 28 November).
 */
async function vacuumWhatTheBenchWrites(url) {
  await query(
    url,
    `vacuum (analyze) auth_sessions, refresh_tokens, sign_in_events, purchases, premium_ledger,
       stripe_events, users, premium_expiry_reminders, outbox_emails`,
  );
}

/** `npm run operator -- …` against the database, as on a server. */
function operatorCommand(url, args) {
  const command = spawnSync(
    process.execPath,
    [path.join(root, 'apps/api/dist/operator-command.js'), ...args],
    { cwd: root, env: { ...baseEnv, DATABASE_URL: url, TOKEN_SECRET }, encoding: 'utf8' },
  );
  if (command.status !== 0) throw new Error(`operator command: ${command.stderr}`);
}

/** Sessions that ended 31 to 32 days ago and sign-in events of 91 days ago: the job's work. */
async function addPruningBacklog(url) {
  await query(
    url,
    `with members as (
       select id, row_number() over (order by id) as n from users
       where email like 'bench.grant.%'
     ), sessions as (
       insert into auth_sessions (user_id, created_at, expires_at, sign_in_method, device_label)
       select members.id, now() - interval '62 days' + make_interval(secs => j % 86400),
         now() - interval '32 days' + make_interval(secs => j % 86400), 'password', 'Chrome on macOS'
       from generate_series(1, $1::int) as j join members on members.n = 1 + j % ${GRANT_MEMBERS}
       returning id
     )
     insert into refresh_tokens (session_id, token_hash)
     select id, md5(random()::text) || md5(random()::text) from sessions`,
    [PRUNE_SESSIONS],
  );
  await query(
    url,
    `insert into sign_in_events (user_id, created_at, method, outcome, device_label,
       client_address, network)
     select users.id, now() - interval '91 days' - make_interval(secs => j), 'password', 'failure',
       'Chrome on macOS', '198.51.100.1', '198.51.100.0/24'
     from generate_series(1, $1::int) as j
     join users on users.email = 'bench.grant.' || (1 + j % ${GRANT_MEMBERS}) || '@example.com'`,
    [PRUNE_EVENTS],
  );
  // As autovacuum's analyze would after so many rows (see vacuumWhatTheBenchWrites): planned on
  // the empty database's counts from before them, the job read its tables whole at every batch.
  await query(url, 'analyze auth_sessions, refresh_tokens, sign_in_events');
}

async function startProduct(url, dataDir) {
  const child = spawn(process.execPath, [path.join(root, 'apps/api/dist/main.js')], {
    cwd: root,
    env: {
      ...baseEnv,
      DATABASE_URL: url,
      DATA_DIR: dataDir,
      PORT: String(PORT),
      TOKEN_SECRET,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      AUTH_REQUESTS_PER_MINUTE: '100000000',
      AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR: '100000000',
      REGISTRATIONS_PER_ADDRESS_PER_HOUR: '100000000',
      SIGN_IN_PAGE_REQUESTS_PER_MINUTE: '100000000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitForHealth(BASE_URL);
  return child;
}

const totp = (secret) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });

/**
 * The operator's desk session, as a person opens it: two-step sign-in turned on, the role granted
 * by the operator command, then a sign-in
 * with the password and a code of a later 30-second step (a step's code works once).
 */
async function operatorSession(url) {
  const first = await callApi(BASE_URL, 'POST', '/auth/local/login/email', {
    email: OPERATOR_EMAIL,
    password: PASSWORD,
  });
  const { secret } = await callApi(BASE_URL, 'POST', '/auth/mfa/totp/setup', {}, first.accessToken);
  const step = Math.floor(Date.now() / 30_000);
  await callApi(
    BASE_URL,
    'POST',
    '/auth/mfa/totp/confirm',
    { code: totp(secret).generate() },
    first.accessToken,
  );
  operatorCommand(url, ['grant', OPERATOR_EMAIL, '--role', 'support']);
  await sleep((step + 1) * 30_000 - Date.now() + 200);
  const { mfaToken } = await callApi(BASE_URL, 'POST', '/auth/local/login/email', {
    email: OPERATOR_EMAIL,
    password: PASSWORD,
  });
  const tokens = await callApi(BASE_URL, 'POST', '/auth/mfa/verify', {
    mfaToken,
    code: totp(secret).generate(),
  });
  return tokens.accessToken;
}

function run(options) {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** Each database's server_version_num, as walCounters first asks it. */
const serverVersions = {};

/**
 * What PostgreSQL had written to its log and how many checkpoints it had begun, cluster-wide.
 * A page's first change after a checkpoint goes whole into the log (a full-page image): at scale
 * a call's writes land on pages that are seldom changed twice between checkpoints.
 */
async function walCounters(url) {
  // PostgreSQL 17 moved the checkpoint counts from pg_stat_bgwriter to pg_stat_checkpointer.
  // Asked once per database, not around every call.
  serverVersions[url] ??= query(
    url,
    `select current_setting('server_version_num')::int as version`,
  ).then(([row]) => row.version);
  const checkpoints =
    (await serverVersions[url]) >= 170000
      ? `(select (num_timed + num_requested)::int from pg_stat_checkpointer)`
      : `(select (checkpoints_timed + checkpoints_req)::int from pg_stat_bgwriter)`;
  const [row] = await query(
    url,
    `select wal_fpi::float8 as "fullPages", wal_bytes::float8 as bytes,
       ${checkpoints} as checkpoints
     from pg_stat_wal`,
  );
  return row;
}

/**
 * A checkpoint, a warm-up of 2 s, then SECONDS measured: p99, median, requests, load average
 * before, and the log PostgreSQL wrote meanwhile, per call: the cluster's, so the product's own
 * jobs count in it (the reminders' first run, a minute after start, did: docs/benchmarks/scale.md,
 * 28 November). The checkpoint puts every window on both databases at the same point of the
 * cycle: a page's first change after one is logged whole, so a timed checkpoint begun just before
 * one database's window, and not the other's, made it look worse (the count of those begun during
 * the window stays as a check: checkpoint_timeout counts from this one).
 */
async function measure(options, url) {
  await query(url, 'checkpoint');
  await run({ ...options, duration: 2 });
  const loadBefore = load();
  const walBefore = await walCounters(url);
  const result = await run({ ...options, duration: SECONDS });
  const walAfter = await walCounters(url);
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${options.url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  const calls = Math.max(result.requests.total, 1);
  return {
    p99: result.latency.p99,
    median: result.latency.p50,
    requests: result.requests.total,
    load: loadBefore,
    wal: {
      fullPagesPerCall: (walAfter.fullPages - walBefore.fullPages) / calls,
      kilobytesPerCall: (walAfter.bytes - walBefore.bytes) / 1024 / calls,
      checkpointsBegun: walAfter.checkpoints - walBefore.checkpoints,
    },
  };
}

function get(route, accessToken) {
  return {
    url: `http://127.0.0.1:${PORT}/api${route}`,
    headers: { authorization: `Bearer ${accessToken}` },
    connections: CONNECTIONS,
  };
}

/** A checkout.session.completed as Stripe signs it: `t=<time>,v1=<HMAC-SHA256 of "t.body">`. */
function signedCheckout(email) {
  const id = randomUUID().replaceAll('-', '');
  const body = JSON.stringify({
    id: `evt_${id}`,
    object: 'event',
    type: 'checkout.session.completed',
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: `cs_test_${id}`,
        object: 'checkout.session',
        client_reference_id: null,
        customer: null,
        customer_details: { email },
        metadata: { planId: '1-week' },
        amount_total: 999,
        currency: 'usd',
        payment_status: 'paid',
        payment_intent: `pi_${id}`,
      },
    },
  });
  const time = Math.floor(Date.now() / 1000);
  const signature = createHmac('sha256', WEBHOOK_SECRET).update(`${time}.${body}`).digest('hex');
  return { body, signature: `t=${time},v1=${signature}` };
}

/**
 * One run of the pruning job (pruneOnce, from the source through tsx), while this process reads
 * pg_stat_activity every 5 ms: the longest any DELETE of the job's connection ran (its batch's
 * row locks last that long, and its commit, which does not wait for the disk; the reads before it
 * in the same transaction take none).
 */
async function pruneOnce(url) {
  const jobUrl = `${url}${url.includes('?') ? '&' : '?'}application_name=bench-pruning`;
  const sampler = new pg.Client({ connectionString: url });
  await sampler.connect();
  let longestMs = 0;
  let sampling = true;
  const sampling$ = (async () => {
    while (sampling) {
      const { rows } = await sampler.query(
        `select coalesce(max(extract(epoch from clock_timestamp() - query_start) * 1000), 0) as ms
         from pg_stat_activity
         where application_name = 'bench-pruning' and state = 'active' and query ilike 'delete%'`,
      );
      longestMs = Math.max(longestMs, Number(rows[0].ms));
      await sleep(5);
    }
  })();
  const started = performance.now();
  // Not spawnSync: the sampling above runs in this process's event loop meanwhile.
  const job = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'scripts/bench/prune-once.mjs')],
    { cwd: root, env: { ...baseEnv, DATABASE_URL: jobUrl }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  job.stdout.on('data', (chunk) => {
    output += chunk;
  });
  const status = await new Promise((resolve) => job.once('exit', resolve));
  const milliseconds = performance.now() - started;
  sampling = false;
  await sampling$;
  await sampler.end();
  if (status !== 0) throw new Error(`pruning exited with ${status}`);
  const report = JSON.parse(output.trim().split('\n').at(-1));
  return { ...report, milliseconds, longestDeleteMs: longestMs, load: load() };
}

async function suite(name, url) {
  console.error(`${name}: preparing ${url.replace(/\/\/[^@]*@/, '//')}…`);
  await prepare(url);
  const results = {};
  // Before the product starts: the job's run measured here is also the catch-up of a database
  // left idle, which the product's own first run, a minute after its start, would otherwise do
  // during the windows (on a million members, thousands of seeded sessions come past their 30
  // days every hour, each read from disk to be deleted).
  if (wanted('pruning')) {
    console.error(`${name}: the pruning job over its backlog…`);
    await addPruningBacklog(url);
    results.pruning = await pruneOnce(url);
  } else {
    await pruneOnce(url);
  }
  await vacuumWhatTheBenchWrites(url);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kegel-scale-'));
  const product = await startProduct(url, dataDir);
  try {
    const member = await callApi(BASE_URL, 'POST', '/auth/local/login/email', {
      email: MEMBER_EMAIL,
      password: PASSWORD,
    });
    const searches = ['searchEmail', 'searchCheckout', 'searchTransaction'].filter(wanted);
    let operatorToken;
    if (searches.length > 0) {
      console.error(`${name}: the operator's desk session (waits for the next code)…`);
      operatorToken = await operatorSession(url);
    }

    console.error(`${name}: measuring, ${SECONDS} s per call…`);
    if (wanted('profile')) {
      results.profile = await measure(get('/users/profile', member.accessToken), url);
    }
    if (wanted('history')) {
      results.history = await measure(
        get('/users/subscriptions/personal', member.accessToken),
        url,
      );
    }
    if (wanted('signIn')) {
      results.signIn = await measure(
        {
          url: `http://127.0.0.1:${PORT}/api/auth/local/login/email`,
          method: 'POST',
          connections: cores,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: MEMBER_EMAIL, password: PASSWORD }),
        },
        url,
      );
    }
    let next = 0;
    if (wanted('webhook')) {
      results.webhook = await measure(
        {
          url: `http://127.0.0.1:${PORT}/api/payments/stripe/webhook`,
          method: 'POST',
          connections: CONNECTIONS,
          requests: [
            {
              setupRequest(request) {
                next += 1;
                const { body, signature } = signedCheckout(
                  `bench.grant.${1 + (next % GRANT_MEMBERS)}@example.com`,
                );
                return {
                  ...request,
                  headers: { 'content-type': 'application/json', 'stripe-signature': signature },
                  body,
                };
              },
            },
          ],
        },
        url,
      );
    }
    const search = async (term) => {
      const route = `/ops/members?query=${encodeURIComponent(term)}`;
      const { data } = await callApi(BASE_URL, 'GET', route, undefined, operatorToken);
      return { ...(await measure(get(route, operatorToken), url)), matches: data.length };
    };
    const [{ id: checkoutSession }] = await query(url, CHECKOUT_SESSION_SQL);
    const terms = {
      searchEmail: 'bench.grant.1',
      searchCheckout: checkoutSession,
      searchTransaction: ORIGINAL_TRANSACTION,
    };
    for (const key of searches) results[key] = await search(terms[key]);
  } finally {
    await stopProcess(product);
    rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}

console.error('Building (skipped when the build is current)…');
const build = spawnSync(process.execPath, [path.join(root, 'scripts/start.mjs'), '--build-only'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);

const loadAtStart = load();
const empty = await suite('empty', EMPTY_URL);
const scale = await suite('scale', SCALE_URL);
const [{ members }] = await query(SCALE_URL, 'select count(*)::int as members from users');

const calls = [
  ['profile', 'GET /api/users/profile'],
  ['history', 'GET /api/users/subscriptions/personal'],
  ['signIn', `sign-in, ${cores} connections (argon2id)`],
  ['webhook', 'Stripe webhook, paid checkout granted'],
  ['searchEmail', 'desk search, email prefix'],
  ['searchCheckout', 'desk search, Checkout Session id'],
  ['searchTransaction', 'desk search, App Store transaction id'],
];
const rows = [
  [
    'call',
    'p99 empty (ms)',
    'p99 at scale (ms)',
    'ratio',
    'median empty / scale (ms)',
    'log per call, empty / scale (full pages; kB)',
    'checkpoints begun (empty; scale)',
    'load average (empty; scale)',
  ],
];
const walPerCall = ({ wal }) =>
  `${wal.fullPagesPerCall.toFixed(2)}; ${wal.kilobytesPerCall.toFixed(1)}`;
for (const [key, label] of calls.filter(([key]) => wanted(key))) {
  const [a, b] = [empty[key], scale[key]];
  rows.push([
    label,
    String(a.p99),
    String(b.p99),
    `${(b.p99 / a.p99).toFixed(2)} ×`,
    `${a.median} / ${b.median}`,
    `${walPerCall(a)} / ${walPerCall(b)}`,
    `${a.wal.checkpointsBegun}; ${b.wal.checkpointsBegun}`,
    `${a.load}; ${b.load}`,
  ]);
}
if (wanted('pruning')) {
  const prune = (result) =>
    `${Math.round(result.milliseconds)} ms, ${result.deleted} rows, ${result.batches} batches`;
  rows.push([
    'pruning job, one run (time, rows, batches)',
    prune(empty.pruning),
    prune(scale.pruning),
    `${(scale.pruning.milliseconds / empty.pruning.milliseconds).toFixed(2)} ×`,
    '',
    '',
    '',
    `${empty.pruning.load}; ${scale.pruning.load}`,
  ]);
  // The job times each batch itself: its reads and its DELETE. Row locks come with the DELETE
  // alone, sampled from pg_stat_activity every 5 ms from outside (on a busy machine the sample
  // includes the sampler's own wait for a core).
  rows.push([
    "pruning job, longest batch (ms: the job's own timing of its read and DELETE; the longest DELETE, sampled)",
    `${empty.pruning.longestBatchMs}; ${empty.pruning.longestDeleteMs.toFixed(0)}`,
    `${scale.pruning.longestBatchMs}; ${scale.pruning.longestDeleteMs.toFixed(0)}`,
    '',
    'goal ≤ 100',
    '',
    '',
    '',
  ]);
}

const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
const line = (row) => `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
console.log(
  `\n${cores} cores; ${members.toLocaleString('en-US')} members at scale; load average at start ${loadAtStart}, at the end ${load()}`,
);
console.log(
  `${SECONDS} s per call after 2 s of warm-up, ${CONNECTIONS} connections; goal: p99 at scale ≤ 1.5 × empty\n`,
);
console.log(line(rows[0]));
console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
for (const row of rows.slice(1)) console.log(line(row));
