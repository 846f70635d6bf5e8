// Applies the migrations a seeded database has not had yet, as the product does at start (the
// built operator command opens the database, which migrates it), while a sign-in, a refresh and a
// Stripe grant's purchase go on beside it, one after the other, as fast as they can: the
// statements that meet a migration of the sessions' tables (0029) or of purchases (0030). Prints how long the migration took and how long the probes waited, so a
// file that runs outside a transaction (`create index concurrently`, then a short `alter table`)
// shows what the members would have felt. The other migrations are replayed by
// scale-migrations.mjs, in a transaction, as the runner applies them.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/kegel_scale node scripts/bench/scale-migrate-live.mjs
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadAverage as load } from './support.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(path.join(root, 'apps/api/package.json'));
const pg = require('pg');

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL names the seeded PostgreSQL database.');
  process.exit(2);
}
const client = new pg.Client({ connectionString: url });
await client.connect();
const { rows: before } = await client.query(
  'select name from schema_migrations order by name desc limit 1',
);
const { rows: members } = await client.query(
  `select id from users where lower(email) = 'bench.member@example.com'`,
);
if (!members[0]) throw new Error('not a seeded database: no bench.member@example.com');
const memberId = members[0].id;

/**
 * One sign-in's session and token, a refresh's locked lookup of it, and a grant's purchase with
 * the payment looked up by its id alone (the desk's search); rolled back.
 */
async function probe() {
  await client.query('begin');
  try {
    const session = await client.query(
      `insert into auth_sessions (user_id, expires_at, sign_in_method, device_label)
       values ($1, now() + interval '30 days', 'password', 'probe') returning id`,
      [memberId],
    );
    const tokenHash = `probe-${Math.random()}`;
    await client.query('insert into refresh_tokens (session_id, token_hash) values ($1, $2)', [
      session.rows[0].id,
      tokenHash,
    ]);
    // The refresh's lookup, by whichever index the schema has at that moment.
    await client.query(
      `select id from refresh_tokens where session_id = $1 and token_hash = $2 for update`,
      [session.rows[0].id, tokenHash],
    );
    const paymentId = `cs_probe_${Math.random()}`;
    await client.query(
      `insert into purchases (user_id, plan_id, plan_name, provider, provider_payment_id,
         amount_cents, currency, days, starts_at, expires_at)
       values ($1, '1-week', '1 Week', 'Stripe', $2, 999, 'usd', 7, now(), now())
       on conflict (provider, environment, provider_payment_id) do nothing`,
      [memberId, paymentId],
    );
    await client.query('select id from purchases where provider_payment_id = $1', [paymentId]);
  } finally {
    await client.query('rollback');
  }
}

const waits = [];
let migrating = true;
const startedAt = performance.now();
const migration = new Promise((resolve, reject) => {
  const child = spawn(
    process.execPath,
    [path.join(root, 'apps/api/dist/operator-command.js'), 'list'],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL: url },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  child.on('error', reject);
  child.on('exit', (code) =>
    code === 0 ? resolve() : reject(new Error(`migrate exited ${code}`)),
  );
});
const migrationDone = migration.finally(() => {
  migrating = false;
});
const loadAtStart = load();
while (migrating) {
  const started = performance.now();
  await probe();
  waits.push(performance.now() - started);
}
await migrationDone;
const migrationMs = performance.now() - startedAt;
const { rows: after } = await client.query(
  'select name from schema_migrations where name > $1 order by name',
  [before[0]?.name ?? ''],
);
await client.end();

waits.sort((a, b) => a - b);
const at = (fraction) => waits[Math.min(waits.length - 1, Math.floor(fraction * waits.length))];
console.log(`migrations applied: ${after.map((row) => row.name).join(', ') || 'none'}`);
console.log(`migration time: ${(migrationMs / 1000).toFixed(1)} s (load ${loadAtStart})`);
console.log(
  `probes (session + token insert, locked lookup, purchase insert and lookup; rolled back): ${waits.length}, ` +
    `median ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, ` +
    `longest ${waits.at(-1).toFixed(1)} ms, over 100 ms: ${waits.filter((ms) => ms > 100).length}`,
);
