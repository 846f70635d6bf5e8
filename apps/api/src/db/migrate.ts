// Plain SQL migrations (migrations/NNNN-name.sql), the same files for PGlite and PostgreSQL,
// applied in name order at start. Each file runs in its own transaction together with its row in
// schema_migrations, so a failed file leaves nothing half-applied. A session-level advisory lock
// makes processes that start together take turns: the first applies, the others find it done.
import { readdir, readFile } from 'node:fs/promises';

import { type Kysely, sql } from 'kysely';

import type { Database } from './schema';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

/** Any constant shared by every process of this product; it only has to be stable. */
const MIGRATION_LOCK_KEY = 7_246_530_001;

interface MigrationFile {
  name: string;
  sql: string;
}

async function readMigrationFiles(): Promise<MigrationFile[]> {
  const names = (await readdir(MIGRATIONS_DIR)).filter((name) => name.endsWith('.sql')).sort();
  return Promise.all(
    names.map(async (name) => ({
      name,
      sql: await readFile(new URL(name, MIGRATIONS_DIR), 'utf8'),
    })),
  );
}

/**
 * Applies the migrations not applied yet; returns their names. `through` stops after the named
 * file (tests of a migration build the data it meets first).
 */
export async function runMigrations(
  db: Kysely<Database>,
  options: { through?: string } = {},
): Promise<string[]> {
  const all = await readMigrationFiles();
  const last = options.through ? all.findIndex((file) => file.name === options.through) : -1;
  if (options.through && last < 0) throw new Error(`no migration named ${options.through}`);
  const files = last < 0 ? all : all.slice(0, last + 1);
  return db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(connection);
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
        await connection.transaction().execute(async (transaction) => {
          await sql.raw(file.sql).execute(transaction);
          await transaction.insertInto('schemaMigrations').values({ name: file.name }).execute();
        });
        newlyApplied.push(file.name);
      }
      return newlyApplied;
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(connection);
    }
  });
}
