import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { CompiledQuery, sql } from 'kysely';
import { afterEach, describe, expect, inject, it } from 'vitest';

import { DataDirLockedError } from '../src/db/data-dir-lock';
import { type DatabaseHandle, openDatabase } from '../src/db/database';
import { runMigrations } from '../src/db/migrate';
import { preparedStatement } from '../src/db/prepared-statements';
import { testConfig } from './support/test-app';
import { type TestDatabase, testDatabaseKinds } from './support/test-databases';

describe.each(testDatabaseKinds)('database on $name', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** Empty, as on a server's first start (`empty`), or a copy of the run's migrated template. */
  async function freshDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
    const database = await kind.create(options);
    cleanups.push(() => database.drop());
    return database;
  }

  async function open(database: TestDatabase): Promise<DatabaseHandle> {
    const handle = await openDatabase(testConfig(database).database);
    cleanups.push(() => handle.close());
    return handle;
  }

  // PGlite's initdb plus every migration is seconds of CPU: on a busy shared machine, well over
  // the usual 30 s (app.ts gives PGlite's start 120 s for the same reason).
  it('migrates a new database and seeds the four plans in integer cents', async () => {
    const handle = await open(await freshDatabase({ empty: true }));
    expect(handle.appliedMigrations).toContain('0001-plans.sql');
    const plans = await handle.db
      .selectFrom('plans')
      .select(['id', 'name', 'days', 'priceCents', 'currency'])
      .orderBy('days')
      .execute();
    expect(plans).toEqual([
      { id: '1-day', name: '1 Day', days: 1, priceCents: 299, currency: 'usd' },
      { id: '1-week', name: '1 Week', days: 7, priceCents: 999, currency: 'usd' },
      { id: '1-month', name: '1 Month', days: 30, priceCents: 2999, currency: 'usd' },
      { id: '1-year', name: '1 Year', days: 365, priceCents: 11999, currency: 'usd' },
    ]);
  }, 120_000);

  it('applies nothing the second time (idempotent)', async () => {
    // The template was migrated once for the whole run: this start is the second, the call below
    // the third.
    const handle = await open(await freshDatabase());
    expect(handle.appliedMigrations).toEqual([]);
    expect(await runMigrations(handle.db)).toEqual([]);
    const { count } = await handle.db
      .selectFrom('plans')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    expect(Number(count)).toBe(4);
  });

  it('builds an index concurrently from a file marked to run outside a transaction, and only from one', async () => {
    const handle = await open(await freshDatabase());
    const directory = (files: Record<string, string>): URL => {
      const folder = mkdtempSync(path.join(tmpdir(), 'kegel-migrations-'));
      for (const [name, text] of Object.entries(files)) {
        writeFileSync(path.join(folder, name), text);
      }
      return pathToFileURL(`${folder}/`);
    };
    const indexes = async () =>
      (
        await sql<{ name: string; valid: boolean }>`
          select c.relname as name, i.indisvalid as valid from pg_index i
          join pg_class c on c.oid = i.indexrelid where c.relname like 'test_concurrent_%'
        `.execute(handle.db)
      ).rows;

    // In the usual transaction, PostgreSQL refuses it: nothing is built, nothing recorded.
    const inside = directory({
      '9001-inside.sql':
        'create index concurrently test_concurrent_inside on users (created_at);\n',
    });
    await expect(runMigrations(handle.db, { directory: inside })).rejects.toThrow(
      /transaction block/,
    );
    expect(await indexes()).toEqual([]);

    const outside = directory({
      '9002-outside.sql': [
        '-- migrate: outside a transaction',
        '-- The way a later migration builds an index on a big table.',
        'drop index concurrently if exists test_concurrent_outside;',
        'create index concurrently test_concurrent_outside',
        '  on users (created_at);',
        '',
      ].join('\n'),
    });
    expect(await runMigrations(handle.db, { directory: outside })).toEqual(['9002-outside.sql']);
    expect(await indexes()).toEqual([{ name: 'test_concurrent_outside', valid: true }]);
    expect(await runMigrations(handle.db, { directory: outside })).toEqual([]);
  });

  it('lets two processes that start together build an index concurrently: one builds, the other waits its turn without deadlock', async () => {
    // PGlite is one connection in one process: no second process can wait on its lock.
    if (kind.name !== 'PostgreSQL') return;
    const database = await freshDatabase();
    const first = await open(database);
    const second = await open(database);
    const folder = mkdtempSync(path.join(tmpdir(), 'kegel-migrations-'));
    writeFileSync(
      path.join(folder, '9003-concurrently.sql'),
      [
        '-- migrate: outside a transaction',
        // Long enough for the second process to be waiting on the lock when the build starts.
        'select pg_sleep(0.5);',
        'drop index concurrently if exists test_concurrent_together;',
        'create index concurrently test_concurrent_together on users (created_at);',
        '',
      ].join('\n'),
    );
    const directory = pathToFileURL(`${folder}/`);
    const applied = await Promise.all([
      runMigrations(first.db, { directory }),
      new Promise((resolve) => setTimeout(resolve, 100)).then(() =>
        runMigrations(second.db, { directory }),
      ),
    ]);
    expect(applied).toEqual([['9003-concurrently.sql'], []]);
    const { rows } = await sql<{ valid: boolean }>`
      select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
      where c.relname = 'test_concurrent_together'`.execute(first.db);
    expect(rows).toEqual([{ valid: true }]);
  });

  it('gives sessions, refresh tokens and sign-in events ids that begin with the time (UUID version 7)', async () => {
    const handle = await open(await freshDatabase());
    const user = await handle.db
      .insertInto('users')
      .values({ email: 'ordered.ids@example.com' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const sessionIds: string[] = [];
    const tokenIds: string[] = [];
    const eventIds: string[] = [];
    for (const index of [1, 2, 3]) {
      const before = Date.now();
      const session = await handle.db
        .insertInto('authSessions')
        .values({ userId: user.id, expiresAt: new Date(before + 60_000) })
        .returning('id')
        .executeTakeFirstOrThrow();
      const token = await handle.db
        .insertInto('refreshTokens')
        .values({ sessionId: session.id, tokenHash: `hash-${index}` })
        .returning('id')
        .executeTakeFirstOrThrow();
      const event = await handle.db
        .insertInto('signInEvents')
        .values({
          userId: user.id,
          method: 'password',
          outcome: 'success',
          deviceLabel: 'Unknown device',
          clientAddress: '127.0.0.1',
          network: '127.0.0.0/24',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const after = Date.now();
      for (const id of [session.id, token.id, event.id]) {
        // 8-4-4-4-12 hex digits: the time is the first 12, the version the 13th.
        const hex = id.replaceAll('-', '');
        expect(hex[12], id).toBe('7');
        expect(['8', '9', 'a', 'b'], id).toContain(hex[16]);
        const milliseconds = Number.parseInt(hex.slice(0, 12), 16);
        expect(milliseconds).toBeGreaterThanOrEqual(before - 1);
        expect(milliseconds).toBeLessThanOrEqual(after + 1);
      }
      sessionIds.push(session.id);
      tokenIds.push(token.id);
      eventIds.push(event.id);
      // The next millisecond: the ids of one millisecond share their time and differ at random.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    // In the order they were made, which is how an index on them fills: at its end.
    expect([...sessionIds].sort()).toEqual(sessionIds);
    expect([...tokenIds].sort()).toEqual(tokenIds);
    expect([...eventIds].sort()).toEqual(eventIds);
  });

  it('keeps every row across a restart', async () => {
    const database = await freshDatabase();
    const first = await openDatabase(testConfig(database).database);
    await first.db
      .insertInto('plans')
      .values({ id: 'test-2-weeks', name: '2 Weeks', days: 14, priceCents: 1599, currency: 'usd' })
      .execute();
    await first.close();

    const second = await open(database);
    expect(second.appliedMigrations).toEqual([]);
    const row = await second.db
      .selectFrom('plans')
      .select(['name', 'priceCents'])
      .where('id', '=', 'test-2-weeks')
      .executeTakeFirst();
    expect(row).toEqual({ name: '2 Weeks', priceCents: 1599 });
  });

  it('runs a prepared statement by name, many times, with its values typed as any query', async () => {
    const handle = await open(await freshDatabase());
    const text = preparedStatement(
      'test_plans_by_price',
      'select id, price_cents, now() > $2::timestamptz as is_later, $3::timestamptz as given from plans where price_cents >= $1 order by price_cents',
    );
    const given = new Date('2026-01-02T03:04:05.678Z');
    for (let run = 0; run < 3; run += 1) {
      const result = await handle.db.executeQuery<{
        id: string;
        priceCents: number;
        isLater: boolean;
        given: Date;
      }>(CompiledQuery.raw(text, [1000, new Date(0), given]));
      expect(result.rows.map((row) => row.id)).toEqual(['1-month', '1-year']);
      expect(result.rows[0]).toMatchObject({ isLater: true, given });
    }
    // Inside a transaction it sees the transaction's own writes, as any statement does.
    await handle.db.transaction().execute(async (transaction) => {
      await transaction
        .updateTable('plans')
        .set({ priceCents: 5 })
        .where('id', '=', '1-year')
        .execute();
      const result = await transaction.executeQuery<{ id: string }>(
        CompiledQuery.raw(text, [1000, new Date(0), given]),
      );
      expect(result.rows.map((row) => row.id)).toEqual(['1-month']);
      // And it is PostgreSQL's prepared statement of this connection, not a text parsed anew.
      const prepared = await sql<{
        name: string;
      }>`select name from pg_prepared_statements`.execute(transaction);
      expect(prepared.rows.map((row) => row.name)).toContain('test_plans_by_price');
    });
  });
});

describe('PGlite data directory', () => {
  it('refuses a second server on the same DATA_DIR while the first runs', async () => {
    const pglite = testDatabaseKinds.find((kind) => kind.name === 'PGlite');
    if (!pglite) throw new Error('PGlite is always tested');
    const database = await pglite.create();
    const first = await openDatabase(testConfig(database).database);
    try {
      await expect(openDatabase(testConfig(database).database)).rejects.toBeInstanceOf(
        DataDirLockedError,
      );
    } finally {
      await first.close();
      await database.drop();
    }
  });

  it('creates the database of an empty directory in a process of its own, and says why it could not', async () => {
    // A file where the directory should be: initdb's process fails, and its reason is the error.
    const dataDir = path.join(mkdtempSync(path.join(inject('scratchDir'), 'not-a-dir-')), 'data');
    writeFileSync(dataDir, 'a file, not a directory');
    const initdbFailed = /initdb's process exited with code 1: .*ErrnoError/;
    await expect(openDatabase({ kind: 'pglite', dataDir })).rejects.toThrow(initdbFailed);
    // The lock went with the failure: the next start meets the same reason, not a lock.
    await expect(openDatabase({ kind: 'pglite', dataDir })).rejects.toThrow(initdbFailed);
  }, 120_000);
});

const postgres = testDatabaseKinds.find((kind) => kind.name === 'PostgreSQL');
describe.runIf(postgres)('PostgreSQL migrations under concurrency', () => {
  it('lets processes that start together take turns: one applies, the others find it done', async () => {
    const database = await postgres!.create({ empty: true });
    const config = testConfig(database).database;
    const handles = await Promise.all([
      openDatabase(config),
      openDatabase(config),
      openDatabase(config),
    ]);
    try {
      const applied = handles.map((handle) => handle.appliedMigrations);
      expect(applied.filter((names) => names.length > 0)).toHaveLength(1);
      const rows = await sql<{
        count: number;
      }>`select count(*)::int as count from schema_migrations`.execute(handles[0].db);
      expect(rows.rows[0]?.count).toBeGreaterThan(0);
    } finally {
      await Promise.all(handles.map((handle) => handle.close()));
      await database.drop();
    }
  });
});
