import { PGlite } from '@electric-sql/pglite';
import { CamelCasePlugin, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';

import { type DatabaseConfig, redactDatabaseUrl } from '../config';
import { lockDataDir } from './data-dir-lock';
import { runMigrations } from './migrate';
import { PGliteDialect } from './pglite-dialect';
import type { Database } from './schema';

export interface DatabaseHandle {
  db: Kysely<Database>;
  /** Names of the migrations this start applied (empty when the schema was current). */
  appliedMigrations: string[];
  /** Resolves true when the database answers a trivial query within the time limit. */
  isAnswering(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export class DatabaseUnavailableError extends Error {
  constructor(target: string, cause: unknown) {
    super(`cannot connect to ${target}: ${(cause as Error).message || String(cause)}`, { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

/** Opens the configured database (PGlite on disk, or PostgreSQL by URL) and migrates it. */
export async function openDatabase(config: DatabaseConfig): Promise<DatabaseHandle> {
  const { db, release, target } = await connect(config);
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    await db.destroy().catch(() => {});
    release();
    throw new DatabaseUnavailableError(target, error);
  }
  let appliedMigrations: string[];
  try {
    appliedMigrations = await runMigrations(db);
  } catch (error) {
    await db.destroy().catch(() => {});
    release();
    throw error;
  }
  return {
    db,
    appliedMigrations,
    isAnswering: (timeoutMs = 2000) => isAnswering(db, timeoutMs),
    async close() {
      await db.destroy();
      release();
    },
  };
}

async function connect(
  config: DatabaseConfig,
): Promise<{ db: Kysely<Database>; release: () => void; target: string }> {
  const plugins = [new CamelCasePlugin()];
  if (config.kind === 'postgres') {
    const pool = new pg.Pool({
      connectionString: config.url,
      max: 10,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 30_000,
    });
    // An idle client that loses its server must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    // Nor may one that is checked out: the pool listens only to idle clients, and a client whose
    // server goes away mid-query (a restart, a failover) emits 'error' on top of failing the
    // query, which would end the process. The query's own error is what the caller handles.
    pool.on('connect', (client) => client.on('error', () => {}));
    return {
      db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins }),
      release: () => {},
      target: redactDatabaseUrl(config.url),
    };
  }
  const unlock = lockDataDir(config.dataDir);
  try {
    const pglite = await PGlite.create(config.dataDir);
    const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite), plugins });
    return {
      db,
      release: unlock,
      target: `PGlite at ${config.dataDir}`,
    };
  } catch (error) {
    unlock();
    throw error;
  }
}

async function isAnswering(db: Kysely<Database>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const query = sql`select 1`
    .execute(db)
    .then(() => true)
    .catch(() => false);
  try {
    return await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
