// The SQL half of the development clock (docs/decisions/021-one-clock-for-every-sandbox.md).
// Every query asks the time with an unqualified `now()`; outside production a PostgreSQL
// server's connections put the schema `dev_clock` before pg_catalog in their search_path, so
// that `now()` is `dev_clock.now()`: the transaction's real time plus the offset stored in one
// row. (PGlite needs no path: its clock is this process's `Date.now()`, already moved.) The row
// also carries the offset across restarts, so the JavaScript clock can be set back to it.
// Column defaults written `default now()` were bound to pg_catalog.now when their migration ran:
// they keep the real time (creation stamps, nothing a rule reads).
import { type Kysely, sql } from 'kysely';

import type { Database } from './schema';

/** The search_path of a connection that reads the development clock. */
// No spaces: PostgreSQL's startup `options` splits on them.
export const DEV_CLOCK_SEARCH_PATH = '"$user",public,dev_clock,pg_catalog';

/** Any constant shared by every process of this product; it only has to be stable. */
const DEV_CLOCK_LOCK_KEY = 7_246_530_021;

/**
 * Creates the schema, its one-row offset table and `dev_clock.now()`, once, whatever the number
 * of processes starting at the same time (they take turns under a session advisory lock; the
 * statements are idempotent anyway). Never called in production.
 */
export async function installDevClock(db: Kysely<Database>): Promise<void> {
  await db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${DEV_CLOCK_LOCK_KEY})`.execute(connection);
    try {
      await sql`create schema if not exists dev_clock`.execute(connection);
      await sql`
        create table if not exists dev_clock.clock_offset (
          one_row boolean primary key default true check (one_row),
          offset_ms bigint not null default 0 check (offset_ms >= 0)
        )`.execute(connection);
      await sql`insert into dev_clock.clock_offset (one_row) values (true) on conflict do nothing`.execute(
        connection,
      );
      // STABLE and one SELECT of qualified names: the planner inlines it, as cheap as now().
      await sql`
        create or replace function dev_clock.now() returns timestamptz
        language sql stable parallel safe as $$
          select pg_catalog.now()
            + (select offset_ms from dev_clock.clock_offset) * interval '1 millisecond'
        $$`.execute(connection);
    } finally {
      await sql`select pg_advisory_unlock(${DEV_CLOCK_LOCK_KEY})`.execute(connection);
    }
  });
}

/** The stored offset in ms (0 when the clock was never moved). */
export async function readDevClockOffsetMs(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{
    offsetMs: string;
  }>`select offset_ms from dev_clock.clock_offset`.execute(db);
  return Number(rows[0]?.offsetMs ?? 0);
}

/** Moves the stored clock forward by `ms`; the new offset. */
export async function advanceDevClockOffsetMs(db: Kysely<Database>, ms: number): Promise<number> {
  const { rows } = await sql<{ offsetMs: string }>`
    update dev_clock.clock_offset set offset_ms = offset_ms + ${ms}
    returning offset_ms`.execute(db);
  return Number(rows[0]?.offsetMs ?? 0);
}
