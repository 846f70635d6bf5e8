import { CamelCasePlugin, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';

import { type DatabaseConfig, redactDatabaseUrl } from '../config';
import { lockDataDir } from './data-dir-lock';
import { DEV_CLOCK_SEARCH_PATH, installDevClock } from './dev-clock';
import { runMigrations } from './migrate';
import { preparedNameOf } from './prepared-statements';
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

/**
 * How long a client is asked to wait before trying again while the database cannot be reached:
 * a PostgreSQL restart or failover takes seconds, and the pool reconnects by itself.
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Socket errors of a connection that could not be made or was lost (node-postgres passes them on). */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is going away or cannot take us: admin_shutdown (57P01),
 * crash_shutdown (57P02), cannot_connect_now (57P03, starting up or in recovery),
 * too_many_connections (53300), and the whole class 08, connection exceptions.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/**
 * node-postgres's own words for a connection that ended or never came (it gives them no code):
 * "Connection terminated unexpectedly", "Connection terminated due to connection timeout", the
 * pool's "timeout exceeded when trying to connect", and a client or pool already broken or ended.
 */
const CONNECTION_FAILURE_MESSAGES =
  /^Connection terminated|timeout exceeded when trying to connect|is not queryable|Cannot use a pool after calling end/;

/**
 * Whether an error means the database could not be reached, rather than that a query was wrong:
 * the first is answered 503 with Retry-After (the pool recovers by itself once the database is
 * back), the second stays a 500. Follows causes and AggregateError's errors (Node reports a
 * refused connection to a name with several addresses as one).
 */
export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (CONNECTION_ERROR_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (CONNECTION_FAILURE_MESSAGES.test(error.message)) return true;
  if (
    error instanceof AggregateError &&
    error.errors.some((inner) => isDatabaseUnreachable(inner, depth + 1))
  )
    return true;
  return isDatabaseUnreachable(error.cause, depth + 1);
}

/** Opens the configured database (PGlite on disk, or PostgreSQL by URL) and migrates it. */
export async function openDatabase(
  config: DatabaseConfig,
  /** Tests of a migration stop before it (`through` the one before), to build what it meets. */
  migrations: { through?: string } = {},
): Promise<DatabaseHandle> {
  const connection = await connect(config);
  const { release, target } = connection;
  let { db } = connection;
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    await db.destroy().catch(() => {});
    release();
    throw new DatabaseUnavailableError(target, error);
  }
  let appliedMigrations: string[];
  try {
    appliedMigrations = await runMigrations(db, migrations);
    // After the migrations: their `default now()` stays bound to the real pg_catalog.now.
    if (config.devClock) db = await readTheDevClock(db, config);
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

/**
 * Outside production: the development clock's schema, and connections whose `now()` is it
 * (db/dev-clock.ts). PostgreSQL's pool is replaced by one whose connections start with the
 * search_path. PGlite keeps its path: it runs in this process and its clock is JavaScript's
 * `Date.now()` (Emscripten's), which the development clock already moves; the schema only keeps
 * the offset across restarts there.
 */
async function readTheDevClock(
  db: Kysely<Database>,
  config: DatabaseConfig,
): Promise<Kysely<Database>> {
  await installDevClock(db);
  if (config.kind === 'pglite') return db;
  await db.destroy();
  return postgresDatabase(config.url, DEV_CLOCK_SEARCH_PATH);
}

/**
 * node-postgres runs a registered statement (prepared-statements.ts) by name, which it prepares
 * on each connection's first use and then only binds and executes. Kysely calls
 * `query(text, values)`; every other text goes on as it came.
 */
class PreparingClient extends pg.Client {
  // @ts-expect-error -- one signature over pg's overloads: Kysely calls only (text, values).
  override query(config: unknown, values?: unknown[], callback?: unknown) {
    const name = typeof config === 'string' ? preparedNameOf(config) : undefined;
    if (name) return super.query({ name, text: config as string, values });
    // @ts-expect-error -- passed on as received.
    return super.query(config, values, callback);
  }
}

async function connect(
  config: DatabaseConfig,
): Promise<{ db: Kysely<Database>; release: () => void; target: string }> {
  if (config.kind === 'postgres') {
    return {
      db: postgresDatabase(config.url),
      release: () => {},
      target: redactDatabaseUrl(config.url),
    };
  }
  const unlock = lockDataDir(config.dataDir);
  try {
    // Loaded here only: a server on PostgreSQL does not carry PGlite.
    const { openPgliteDatabase } = await import('./pglite-database');
    const db = await openPgliteDatabase(config.dataDir);
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

/** A pool on PostgreSQL; `searchPath` is set on each connection as it opens. */
function postgresDatabase(url: string, searchPath?: string): Kysely<Database> {
  const pool = new pg.Pool({
    Client: PreparingClient as typeof pg.Client,
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    ...(searchPath ? { options: `-c search_path=${searchPath}` } : {}),
  });
  // An idle client that loses its server must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // Nor one that loses it while checked out: the pool listens only to idle clients, and an
  // 'error' nobody listens to ends the process. The query in flight fails by itself (answered
  // 503, see isDatabaseUnreachable) and the pool drops the broken client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  return new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new CamelCasePlugin()],
  });
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
