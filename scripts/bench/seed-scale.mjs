// Seeds a PostgreSQL database at the scale the product must stay flat at: 1,000,000 members,
// 3,000,000 purchases (Stripe and App Store, the real plans) with their premium ledger rows,
// 10,000,000 sign-in sessions with a refresh token each, and 3,000,000 sign-in events. All of it
// in set-based SQL (generate_series), in a few minutes on a 2-core machine.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/kegel_scale node scripts/bench/seed-scale.mjs
//   SEED_SCALE=0.01 …   a hundredth of it (a quick try of the script itself)
//   SEED_MEMBERS=1 …    the bench's member alone, with the same five purchases, ten sessions and
//                       three sign-in events as at scale: the "empty" database scale.mjs compares with
//
// The database is migrated first by the product itself (the built operator command opens the
// database as the server does, which applies every migration); nothing the migrations made is
// dropped or altered: the rows go through every index and check constraint as the product's
// own writes would. Foreign keys are not re-checked row by row (session_replication_role =
// replica): every reference is built from the same numbering as the row it names, so they hold
// by construction, and checking 16 million of them would double the time.
//
// The shapes:
// - Members `<first name>.<n>@<domain>`: 40 first names, so an email prefix such as
//   `olivia.12` finds a handful and `olivia.` twenty-five thousand. Every member has the same
//   password hash (one real argon2id hash of BENCH_PASSWORD with the product's parameters,
//   reused: hashing a million would take hours and prove nothing). Member 1 is
//   `bench.member@example.com`, the member the bench signs in as; `bench.operator@example.com`
//   is made an operator by the bench.
// - Purchases: 60 % of members have bought, five purchases each, one after another (a year and
//   a few days apart, so no two periods overlap and the ledger's stacking gives each its own
//   start); every third purchase is an App Store one (Production, a numeric transaction id),
//   the others Stripe Checkout (`cs_…` and `pi_…` ids). The latest purchase is recent, so many
//   members have premium now; users.subscription_end_date is the ledger's end.
// - Ledger: one row per purchase, as the product writes them: a Stripe pass is a `grant` of its
//   days, an App Store transaction a `period` ending at its expiry.
// - Stripe events: the id of each Stripe purchase's checkout.session.completed (the webhook keeps
//   every event id it took, for good).
// - Sessions: ten per member, spread over the last 30 days: 80 % expired, 15 % revoked, 5 %
//   live. None ended more than 30 days ago: the pruning job runs every 6 hours, so a database in
//   service holds almost nothing for it (the bench adds the backlog it times).
// - Sign-in events: three per member within the 90 days the history keeps.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(path.join(root, 'apps/api/package.json'));
const pg = require('pg');
const argon2 = require('@node-rs/argon2');

export const BENCH_PASSWORD = 'correct horse battery staple';
export const BENCH_MEMBER_EMAIL = 'bench.member@example.com';
export const BENCH_OPERATOR_EMAIL = 'bench.operator@example.com';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL names the PostgreSQL database to seed (never one in use).');
  process.exit(2);
}
const scale = Number(process.env.SEED_SCALE ?? 1);
const members = Number(process.env.SEED_MEMBERS ?? Math.round(1_000_000 * scale));
const buyers = Math.round(members * 0.6);
const PURCHASES_PER_BUYER = 5;
const SESSIONS_PER_MEMBER = 10;
const EVENTS_PER_MEMBER = 3;

// The product's own migrations, through the built product (the same code the server runs).
console.error('Building (skipped when the build is current) and migrating…');
const build = spawnSync(process.execPath, [path.join(root, 'scripts/start.mjs'), '--build-only'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);
const migrate = spawnSync(
  process.execPath,
  [path.join(root, 'apps/api/dist/operator-command.js'), 'list'],
  { cwd: root, env: { ...process.env, DATABASE_URL: url }, stdio: ['ignore', 'ignore', 'inherit'] },
);
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

const client = new pg.Client({ connectionString: url });
await client.connect();
const { rows: existing } = await client.query('select count(*)::int as count from users');
if (existing[0].count > 0) {
  console.error(`${url} already holds ${existing[0].count} members: seed an empty database.`);
  process.exit(1);
}

// One real hash, the product's algorithm and parameters (security/password-hasher.ts).
const passwordHash = argon2.hashSync(BENCH_PASSWORD, {
  algorithm: argon2.Algorithm.Argon2id,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
});

await client.query(`set session_replication_role = replica`);
await client.query(`set synchronous_commit = off`);
await client.query(`set maintenance_work_mem = '512MB'`);
await client.query(`set work_mem = '256MB'`);

// Member n's ids: the same expression wherever a row names him, so references need no join.
const userId = (n) => `md5('user-' || ${n})::uuid`;
const timings = [];
async function step(table, statement, parameters = []) {
  const started = performance.now();
  const result = await client.query(statement, parameters);
  const seconds = (performance.now() - started) / 1000;
  timings.push({ table, rows: result.rowCount ?? 0, seconds });
  console.error(
    `${table.padEnd(34)} ${String(result.rowCount ?? 0).padStart(11)} rows  ${seconds.toFixed(1)} s`,
  );
}

const total = performance.now();
await step(
  'users',
  `insert into users (id, email, password_hash, email_verified_at, created_at, updated_at,
     stripe_customer_id, locale)
   select ${userId('n')},
     case when n = 1 then $2
       else (array['olivia','liam','emma','noah','ava','elijah','sophia','james','mia','lucas',
         'amelia','mason','harper','ethan','evelyn','logan','abigail','oliver','ella','aiden',
         'chloe','jacob','grace','henry','lily','jack','zoe','leo','nora','owen','hannah','ryan',
         'aria','luke','layla','adam','ivy','max','ruby','theo'])[1 + n % 40]
         || '.' || n || '@' || (array['example.com','mail.test','post.example','inbox.test'])[1 + (n / 40) % 4]
     end,
     $1,
     case when n % 3 = 0 then now() - make_interval(days => n % 700) end,
     now() - make_interval(days => 60 + n % 1900, secs => n % 86400),
     now() - make_interval(days => n % 60),
     case when n <= $3 then 'cus_' || substr(md5('customer-' || n), 1, 14) end,
     (array[null, 'en', 'es', 'de'])[1 + n % 4]
   from generate_series(1, $4::int) as n`,
  [passwordHash, BENCH_MEMBER_EMAIL, buyers, members],
);
// The operator the bench signs in as (made an operator there, as `npm run operator` does).
await client.query(
  `insert into users (id, email, password_hash, email_verified_at)
   values (md5('bench-operator')::uuid, $1, $2, now())`,
  [BENCH_OPERATOR_EMAIL, passwordHash],
);

// Purchase i (1-based) is buyer b = 1 + (i - 1) % buyers's k-th (k = (i - 1) / buyers, 0..4).
// The k-th begins (4 - k) × 370 days before the latest, which began within the last 40 days.
const purchaseRows = `
  select i, b, k,
    case when i % 3 = 0 then 'Apple' else 'Stripe' end as provider,
    case when i % 3 = 0 then (array['1-week','1-month','1-year'])[1 + i / 3 % 3]
      else (array['1-day','1-week','1-month','1-year'])[1 + i % 4] end as plan_id,
    now() - make_interval(days => (4 - k) * 370 + b % 40, secs => i % 86400) as starts_at
  from (select i, 1 + (i - 1) % $1 as b, (i - 1) / $1 as k
        from generate_series(1, $2::int) as i) as numbered`;
await step(
  'purchases',
  `insert into purchases (id, user_id, plan_id, plan_name, provider, provider_payment_id,
     amount_cents, currency, days, starts_at, expires_at, created_at, payment_intent_id,
     listed_price_cents, listed_currency, environment)
   select md5('purchase-' || p.i)::uuid, ${userId('p.b')}, plans.id, plans.name, p.provider,
     case when p.provider = 'Apple' then (2000000000000000 + p.i)::text
       else 'cs_live_' || md5('checkout-' || p.i) end,
     plans.price_cents, plans.currency, plans.days, p.starts_at,
     p.starts_at + make_interval(hours => 24 * plans.days), p.starts_at,
     case when p.provider = 'Stripe' then 'pi_' || substr(md5('intent-' || p.i), 1, 24) end,
     case when p.provider = 'Stripe' then plans.price_cents end,
     case when p.provider = 'Stripe' then plans.currency end,
     case when p.provider = 'Apple' then 'Production' end
   from (${purchaseRows}) as p join plans on plans.id = p.plan_id`,
  [buyers, buyers * PURCHASES_PER_BUYER],
);
// The webhook records every Stripe event's id for good (a redelivery months later must be known as
// one): a product at this size holds one per Stripe purchase, and each grant adds its id to them.
await step(
  'stripe_events',
  `insert into stripe_events (id, type, received_at)
   select 'evt_' || substr(md5('event-' || id::text), 1, 24), 'checkout.session.completed',
     created_at
   from purchases where provider = 'Stripe'`,
);
await step(
  'premium_ledger',
  `insert into premium_ledger (user_id, source, entry, purchase_id, days, ends_at, reason,
     occurred_at, recorded_at)
   select user_id,
     case when provider = 'Apple' then 'app_store' else 'stripe' end,
     case when provider = 'Apple' then 'period' else 'grant' end,
     id,
     case when provider = 'Stripe' then days end,
     case when provider = 'Apple' then expires_at end,
     case when provider = 'Apple' then 'DID_RENEW' else 'payment' end,
     starts_at, starts_at
   from purchases
   order by starts_at`,
);
// No two periods of a member overlap, so his premium end is his latest period's end.
await step(
  'users.subscription_end_date',
  `update users set subscription_end_date = latest.expires_at
   from (select distinct on (user_id) user_id, expires_at from purchases
         order by user_id, starts_at desc) as latest
   where users.id = latest.user_id`,
);
await step(
  'app_store_subscriptions',
  `insert into app_store_subscriptions (original_transaction_id, user_id, environment, product_id,
     auto_renew, status, signed_at, created_at, updated_at)
   select distinct on (p.user_id) p.provider_payment_id, p.user_id, 'Production',
     plans.app_store_product_id, true, case when p.expires_at > now() then 1 else 2 end,
     p.starts_at, p.starts_at, p.starts_at
   from purchases p join plans on plans.id = p.plan_id
   where p.provider = 'Apple'
   order by p.user_id, p.starts_at`,
);

// Session j (1-based) is member 1 + (j - 1) % members's, `ago` seconds (under 30 days) old in
// its own way: an expired one ended `ago` ago (it began 30 days before), a revoked one began
// `ago` ago and was ended half-way since, a live one (kind 0) began within the last day.
const sessionRows = `
  select j, 1 + (j - 1) % $1 as m, make_interval(secs => (j::bigint * 7919) % (30 * 86400)) as ago,
    j % 20 as kind
  from generate_series(1, $2::int) as j`;
await step(
  'auth_sessions',
  `insert into auth_sessions (id, user_id, created_at, expires_at, revoked_at, revoked_reason,
     sign_in_method, device_label, last_used_at)
   select md5('session-' || s.j)::uuid, ${userId('s.m')}, s.created_at,
     s.created_at + interval '30 days',
     case when s.kind between 1 and 3 then now() - s.ago / 2 end,
     case when s.kind between 1 and 3 then 'logout' end,
     (array['password','password','password','google','apple','passkey'])[1 + s.j % 6],
     (array['Chrome on macOS','Safari on iOS','Firefox on Windows','Chrome on Android'])[1 + s.j % 4],
     s.created_at
   from (select j, m, kind, ago,
           case when kind = 0 then now() - make_interval(secs => j % 86400)
             when kind between 1 and 3 then now() - ago
             else now() - interval '30 days' - ago end as created_at
         from (${sessionRows}) as numbered) as s`,
  [members, members * SESSIONS_PER_MEMBER],
);
await step(
  'refresh_tokens',
  `insert into refresh_tokens (session_id, token_hash, created_at)
   select md5('session-' || j)::uuid, md5('token-a-' || j) || md5('token-b-' || j),
     now() - make_interval(secs => (j::bigint * 7919) % (30 * 86400))
   from generate_series(1, $1::int) as j`,
  [members * SESSIONS_PER_MEMBER],
);
await step(
  'sign_in_events',
  `insert into sign_in_events (user_id, created_at, method, outcome, device_label,
     client_address, network)
   select ${userId('1 + (e - 1) % $1')},
     now() - make_interval(days => 1 + e % 88, secs => e % 86400),
     'password', case when e % 10 = 0 then 'failure' else 'success' end,
     (array['Chrome on macOS','Safari on iOS','Firefox on Windows','Chrome on Android'])[1 + e % 4],
     '198.51.' || (e % 256) || '.' || (e / 256 % 256), '198.51.' || (e % 256) || '.0/24'
   from generate_series(1, $2::int) as e`,
  [members, members * EVENTS_PER_MEMBER],
);
// A product in service has reminded the members whose premium ends within the next 72 hours
// already (modules/premium-reminders): without these rows, the job's first run a minute after the
// bench starts the product would mail ten thousand of them while the calls are measured.
await step(
  'premium_expiry_reminders',
  `insert into premium_expiry_reminders (user_id, ends_at)
   select id, subscription_end_date from users
   where subscription_end_date > now() and subscription_end_date <= now() + interval '72 hours'`,
);
await client.query(`set session_replication_role = origin`);
// The planner's statistics, as autovacuum would gather them on a database in service.
await step('vacuum analyze', 'vacuum analyze');

const seconds = (performance.now() - total) / 1000;
console.log(`\nSeeded ${url.replace(/\/\/[^@]*@/, '//')} in ${seconds.toFixed(0)} s:`);
for (const { table, rows, seconds: took } of timings) {
  console.log(
    `  ${table.padEnd(34)} ${rows.toLocaleString('en-US').padStart(11)} rows  ${took.toFixed(1)} s`,
  );
}
const { rows: size } = await client.query(
  `select pg_size_pretty(pg_database_size(current_database())) as size`,
);
console.log(`  database size ${size[0].size}`);
await client.end();
