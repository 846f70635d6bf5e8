// Plain SQL migrations (migrations/NNNN-name.sql), the same files for PGlite and PostgreSQL,
// applied in name order at start. Each file runs in its own transaction together with its row in
// schema_migrations, so a failed file leaves nothing half-applied. A session-level advisory lock
// makes processes that start together take turns: the first applies, the others find it done
// (they ask for the lock again and again rather than wait on it: see takeMigrationLock).
//
// A file whose first line is `-- migrate: outside a transaction` runs statement by statement,
// each on its own, and is recorded once all have run: what `create index concurrently` needs (it
// cannot run in a transaction), so that an index on a big table is built without locking its
// writes for minutes (issue 30; docs/benchmarks/scale.md has the measured cases and the
// patterns). Such a file must finish when run again after a failure halfway: `drop index
// concurrently if exists` before each `create index concurrently` (a failed build leaves an
// invalid index behind), `if not exists` elsewhere. Its statements end with `;` at the end of a
// line, and none holds one inside (no function bodies).
import { readdir, readFile } from 'node:fs/promises';

import { type Kysely, sql } from 'kysely';

import type { Database } from './schema';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

/** Any constant shared by every process of this product; it only has to be stable. */
const MIGRATION_LOCK_KEY = 7_246_530_001;

/** The first line that takes a file out of the per-file transaction. */
const OUTSIDE_A_TRANSACTION = /^-- migrate: outside a transaction\s*$/m;

interface MigrationFile {
  name: string;
  sql: string;
}

async function readMigrationFiles(directory: URL): Promise<MigrationFile[]> {
  const names = (await readdir(directory)).filter((name) => name.endsWith('.sql')).sort();
  return Promise.all(
    names.map(async (name) => ({
      name,
      sql: await readFile(new URL(name, directory), 'utf8'),
    })),
  );
}

function runsOutsideATransaction(file: MigrationFile): boolean {
  const firstLine = file.sql.split('\n', 1)[0] ?? '';
  return OUTSIDE_A_TRANSACTION.test(firstLine);
}

/** The statements of a file, split where a line ends with `;` (comments left to the server). */
export function statementsOf(fileSql: string): string[] {
  return fileSql
    .split(/;[ \t]*(?:\r?\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement.replace(/^--.*$/gm, '').trim() !== '');
}

/** How long a process that finds the migrations under way waits before asking again. */
const MIGRATION_LOCK_RETRY_MS = 200;

/**
 * Takes the session-level migration lock, asking again every 200 ms while another process holds
 * it, rather than waiting inside `pg_advisory_lock`: a statement waiting there holds a snapshot,
 * and `create index concurrently`, run by the process that holds the lock, waits for every older
 * snapshot to end. Each would wait for the other: PostgreSQL ends one with "deadlock detected",
 * either the waiting process's start or the migration itself (two instances started together).
 */
async function takeMigrationLock(connection: Kysely<Database>): Promise<void> {
  for (;;) {
    const { rows } = await sql<{ locked: boolean }>`
      select pg_try_advisory_lock(${MIGRATION_LOCK_KEY}) as locked`.execute(connection);
    if (rows[0]?.locked) return;
    await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_RETRY_MS));
  }
}

/**
 * Applies the migrations not applied yet; returns their names. `through` stops after the named
 * file (tests of a migration build the data it meets first).
 */
export async function runMigrations(
  db: Kysely<Database>,
  options: { through?: string; directory?: URL } = {},
): Promise<string[]> {
  const all = await readMigrationFiles(options.directory ?? MIGRATIONS_DIR);
  const last = options.through ? all.findIndex((file) => file.name === options.through) : -1;
  if (options.through && last < 0) throw new Error(`no migration named ${options.through}`);
  const files = last < 0 ? all : all.slice(0, last + 1);
  return db.connection().execute(async (connection) => {
    await takeMigrationLock(connection);
    try {
      await sql`
        create table if not exists schema_migrations (
          name text primary key,
          applied_at timestamptz not null default now()
        )
      `.execute(connection);
      const applied = new Set(
        (await connection.selectFrom('schemaMigrations').select('name').execute()).map(
          (row) => row.name,
        ),
      );
      const newlyApplied: string[] = [];
      for (const file of files) {
        if (applied.has(file.name)) continue;
        if (runsOutsideATransaction(file)) {
          // One statement at a time: several in one query would run as one transaction.
          for (const statement of statementsOf(file.sql)) {
            await sql.raw(statement).execute(connection);
          }
          await connection.insertInto('schemaMigrations').values({ name: file.name }).execute();
        } else {
          await connection.transaction().execute(async (transaction) => {
            await sql.raw(file.sql).execute(transaction);
            await transaction.insertInto('schemaMigrations').values({ name: file.name }).execute();
          });
        }
        newlyApplied.push(file.name);
      }
      return newlyApplied;
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(connection);
    }
  });
}
