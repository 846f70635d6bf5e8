// How long each migration that touches a big table would lock it, replayed on a database seeded
// by seed-scale.mjs. The runner (apps/api/src/db/migrate.ts) applies each file in one
// transaction, so a lock a file takes is held until the whole file commits: each file's big-table
// statements run here in one transaction too, after undoing in that transaction what the file
// made (a column dropped, an index or a constraint dropped, the ledger moved aside), timed, with
// the locks they took, and rolled back. Files that touch no table the seed fills are left out
// (they create tables, or alter small ones); see docs/benchmarks/scale-migrations.md.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/kegel_scale node scripts/bench/scale-migrations.mjs
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(path.join(root, 'apps/api/package.json'));
const pg = require('pg');
const migration = (name) =>
  readFileSync(path.join(root, 'apps/api/src/db/migrations', name), 'utf8');

/** The 0009 ledger backfill: its two INSERTs, as the file has them. */
const ledgerBackfill = migration('0009-premium-ledger.sql').slice(
  migration('0009-premium-ledger.sql').indexOf('with ordered as ('),
  migration('0009-premium-ledger.sql').indexOf('-- What Stripe said of the charge'),
);

const files = [
  {
    name: '0003-payments.sql (users.stripe_customer_id, unique)',
    undo: ['alter table users drop column stripe_customer_id'],
    redo: ['alter table users add column stripe_customer_id text unique'],
  },
  {
    name: '0005 / 0007 / 0021 / 0027 (users: columns with constant defaults)',
    undo: [
      'alter table users drop column email_verified_at',
      'alter table users drop column credential_version',
      'alter table users drop column expiry_reminders',
      'alter table users drop column locale',
    ],
    redo: [
      'alter table users add column email_verified_at timestamptz',
      'alter table users add column credential_version integer not null default 0',
      'alter table users add column expiry_reminders boolean not null default true',
      'alter table users add column locale text',
    ],
  },
  {
    name: '0009-premium-ledger.sql (purchases columns, unique index, ledger backfill)',
    undo: [
      'drop index purchases_payment_intent',
      ...['payment_intent_id', 'listed_price_cents', 'listed_currency'].map(
        (column) => `alter table purchases drop column ${column} cascade`,
      ),
      'alter table premium_ledger rename to premium_ledger_seeded',
      'create table premium_ledger (like premium_ledger_seeded including all)',
    ],
    redo: [
      'alter table purchases add column payment_intent_id text',
      'alter table purchases add column listed_price_cents integer',
      'alter table purchases add column listed_currency text',
      'create unique index purchases_payment_intent on purchases (payment_intent_id)',
      ledgerBackfill,
    ],
  },
  {
    name: '0010-app-store.sql (purchases.environment, premium_ledger checks)',
    undo: [
      'alter table purchases drop column environment cascade',
      'alter table premium_ledger drop constraint premium_ledger_source',
      'alter table premium_ledger drop constraint premium_ledger_entry',
    ],
    redo: [
      'alter table purchases add column environment text',
      `alter table premium_ledger add constraint premium_ledger_source
         check (source in ('stripe', 'app_store', 'support', 'legacy'))`,
      `alter table premium_ledger add constraint premium_ledger_entry
         check (entry in ('grant', 'period', 'revoke', 'reinstate', 'balance'))`,
    ],
  },
  {
    name: '0011-session-devices.sql (auth_sessions columns, auth_sessions_ended index)',
    undo: [
      'drop index auth_sessions_ended',
      'alter table auth_sessions drop column sign_in_method',
      'alter table auth_sessions drop column device_label',
      'alter table auth_sessions drop column last_used_at',
    ],
    redo: [
      `alter table auth_sessions add column sign_in_method text
         constraint auth_sessions_sign_in_method check (sign_in_method in ('password', 'google', 'apple', 'passkey'))`,
      'alter table auth_sessions add column device_label text',
      'alter table auth_sessions add column last_used_at timestamptz not null default now()',
      'create index auth_sessions_ended on auth_sessions (coalesce(revoked_at, expires_at))',
    ],
  },
  {
    name: '0012-account-deletion.sql (purchases.user_id foreign key again)',
    undo: [],
    redo: [
      'alter table purchases alter column user_id drop not null',
      'alter table purchases drop constraint purchases_user_id_fkey',
      `alter table purchases add constraint purchases_user_id_fkey
         foreign key (user_id) references users (id) on delete set null`,
    ],
  },
  {
    name: '0015-app-store-environments.sql (purchases check and unique key)',
    undo: [
      'alter table purchases drop constraint purchases_environment',
      'alter table purchases drop constraint if exists purchases_payment',
    ],
    redo: [
      `alter table purchases add constraint purchases_environment check (
         (provider = 'Apple') = (environment is not null)
         and (environment is null or environment in ('Sandbox', 'Production')))`,
      `alter table purchases add constraint purchases_payment
         unique nulls not distinct (provider, environment, provider_payment_id)`,
      'alter table app_store_subscriptions drop constraint app_store_subscriptions_pkey',
      'alter table app_store_subscriptions add primary key (environment, original_transaction_id)',
    ],
  },
  {
    name: '0017-passkeys.sql (auth_sessions sign-in method check)',
    undo: [],
    redo: [
      'alter table auth_sessions drop constraint auth_sessions_sign_in_method',
      `alter table auth_sessions add constraint auth_sessions_sign_in_method
         check (sign_in_method in ('password', 'google', 'apple', 'passkey'))`,
    ],
  },
  {
    name: '0020-support-desk.sql (checks, users_email_prefix, purchases_provider_payment)',
    undo: [
      'alter table auth_sessions drop column second_factor_at',
      'drop index users_email_prefix',
      'drop index app_store_subscriptions_original',
      'drop index if exists purchases_provider_payment',
    ],
    redo: [
      'alter table auth_sessions add column second_factor_at timestamptz',
      'alter table purchases drop constraint purchases_provider_check',
      `alter table purchases add constraint purchases_provider_check
         check (provider in ('Stripe', 'Apple', 'Support'))`,
      'alter table premium_ledger drop constraint premium_ledger_source',
      `alter table premium_ledger add constraint premium_ledger_source
         check (source in ('stripe', 'app_store', 'support', 'legacy'))`,
      'create index users_email_prefix on users (lower(email) text_pattern_ops)',
      'create index app_store_subscriptions_original on app_store_subscriptions (original_transaction_id)',
      'create index purchases_provider_payment on purchases (provider_payment_id)',
    ],
  },
  {
    name: '0025-minor-units.sql (App Store amounts rewritten)',
    undo: [],
    redo: migration('0025-minor-units.sql')
      .split(/;\s*\n/)
      .filter((statement) => /^\s*update purchases/m.test(statement.replace(/^--.*$/gm, ''))),
  },
  {
    name: '0028-time-ordered-session-ids.sql (the ids of sessions, tokens and events: defaults)',
    undo: [
      'alter table auth_sessions alter column id set default gen_random_uuid()',
      'alter table refresh_tokens alter column id set default gen_random_uuid()',
      'alter table sign_in_events alter column id set default gen_random_uuid()',
      'drop function uuid_v7()',
    ],
    redo: migration('0028-time-ordered-session-ids.sql')
      .split(/;\s*\n/)
      .filter((statement) => statement.replace(/^--.*$/gm, '').trim() !== ''),
  },
];

const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
await client.connect();
/**
 * The strongest table lock a statement takes, as PostgreSQL 15 documents them (measured locks
 * would mix in those of the undo steps, taken in the same transaction).
 */
function lockOf(statement) {
  if (/foreign key/i.test(statement)) return 'SHARE ROW EXCLUSIVE (both tables), writes wait';
  if (/^\s*alter table/i.test(statement)) return 'ACCESS EXCLUSIVE, reads and writes wait';
  if (/^\s*create (unique )?index/i.test(statement)) return 'SHARE, writes wait';
  return 'ROW EXCLUSIVE (rows it changes only)';
}

console.log('| migration | statement | ms | lock |');
console.log('|---|---|---|---|');
for (const file of files) {
  await client.query('begin');
  try {
    for (const statement of file.undo) await client.query(statement);
    let total = 0;
    let strongest = 'ROW EXCLUSIVE';
    for (const statement of file.redo) {
      const started = performance.now();
      await client.query(statement);
      const ms = performance.now() - started;
      total += ms;
      const lock = lockOf(statement);
      if (lock.startsWith('ACCESS EXCLUSIVE')) strongest = 'ACCESS EXCLUSIVE';
      else if (strongest !== 'ACCESS EXCLUSIVE' && !lock.startsWith('ROW')) strongest = lock;
      const text = statement.replace(/--.*$/gm, '').replace(/\s+/g, ' ').trim().slice(0, 90);
      console.log(`| ${file.name} | ${text} | ${ms.toFixed(0)} | ${lock} |`);
    }
    // The runner commits a file at its end: every lock above is held that long.
    console.log(
      `| ${file.name} | **the whole file (one transaction)** | **${total.toFixed(0)}** | **${strongest} held ${total.toFixed(0)} ms** |`,
    );
  } finally {
    await client.query('rollback');
  }
}
await client.end();
