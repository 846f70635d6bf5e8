import { type Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';

import { type DatabaseHandle, openDatabase } from '../../src/db/database';
import type { Database } from '../../src/db/schema';
import { foldLedger } from '../../src/modules/premium/ledger';
import * as ledgerRepo from '../../src/modules/premium/repo';
import { testConfig } from '../support/test-app';
import { type TestDatabase, testDatabaseKinds } from '../support/test-databases';

const LEDGER_MIGRATION = '0009-premium-ledger.sql';
const BEFORE_LEDGER = '0008-outbox-deadlines.sql';
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A grant as the server made them before the ledger: the plan's days after the later of the
 * payment and the member's stored end, written into the purchase and the member's row.
 */
async function grantAsBefore(
  db: Kysely<Database>,
  userId: string,
  days: number,
  paidAt: Date,
  /** When its transaction began, if before another grant that took the row lock first. */
  createdAt: Date = paidAt,
): Promise<void> {
  await db.transaction().execute(async (transaction) => {
    const { rows } = await sql<{ startsAt: Date; expiresAt: Date }>`
      select greatest(${paidAt}::timestamptz, coalesce(subscription_end_date, ${paidAt}::timestamptz)) as starts_at,
             greatest(${paidAt}::timestamptz, coalesce(subscription_end_date, ${paidAt}::timestamptz)) + make_interval(days => ${days}) as expires_at
      from users where id = ${userId} for update`.execute(transaction);
    const period = rows[0]!;
    await transaction
      .insertInto('purchases')
      .values({
        userId,
        planId: null,
        planName: `${days} days`,
        provider: 'Stripe',
        providerPaymentId: `cs_test_${userId}_${paidAt.getTime()}_${days}`,
        amountCents: 999,
        currency: 'usd',
        days,
        startsAt: period.startsAt,
        expiresAt: period.expiresAt,
        createdAt,
      })
      .execute();
    await transaction
      .updateTable('users')
      .set({ subscriptionEndDate: period.expiresAt })
      .where('id', '=', userId)
      .execute();
  });
}

describe.each(testDatabaseKinds)('the ledger migration on $name', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function open(database: TestDatabase, through?: string): Promise<DatabaseHandle> {
    const handle = await openDatabase(testConfig(database).database, { through });
    cleanups.push(() => handle.close());
    return handle;
  }

  it("builds the ledger from today's purchases and leaves every member's end as it was", async () => {
    const database = await kind.create({ empty: true });
    cleanups.push(() => database.drop());
    const before = await open(database, BEFORE_LEDGER);
    expect(before.appliedMigrations).not.toContain(LEDGER_MIGRATION);
    const { db } = before;

    async function member(label: string, end: Date | null = null): Promise<string> {
      const { id } = await db
        .insertInto('users')
        .values({ email: `${label}@example.com`, passwordHash: null, subscriptionEndDate: end })
        .returning('id')
        .executeTakeFirstOrThrow();
      return id;
    }
    const start = new Date(Date.now() - 100 * DAY_MS);
    const at = (days: number) => new Date(start.getTime() + days * DAY_MS + 123);

    // Stacked passes, then one bought after the others had run out.
    const stacked = await member('stacked');
    await grantAsBefore(db, stacked, 7, at(0));
    await grantAsBefore(db, stacked, 30, at(0.5));
    await grantAsBefore(db, stacked, 365, at(60));
    // Never bought; premium set by hand (support, a promotion).
    const byHand = await member('by-hand', at(120));
    // Premium set by hand, then a pass bought on top of it.
    const handThenBought = await member('hand-then-bought', at(10));
    await grantAsBefore(db, handThenBought, 30, at(1));
    // A pass, then premium extended by hand beyond it.
    const boughtThenHand = await member('bought-then-hand');
    await grantAsBefore(db, boughtThenHand, 7, at(2));
    await db
      .updateTable('users')
      .set({ subscriptionEndDate: at(200) })
      .where('id', '=', boughtThenHand)
      .execute();
    // A pass, then premium cut short by hand.
    const cutShort = await member('cut-short');
    await grantAsBefore(db, cutShort, 365, at(3));
    await db
      .updateTable('users')
      .set({ subscriptionEndDate: at(5) })
      .where('id', '=', cutShort)
      .execute();
    // A pass, then premium taken away by hand.
    const takenAway = await member('taken-away');
    await grantAsBefore(db, takenAway, 30, at(4));
    await db
      .updateTable('users')
      .set({ subscriptionEndDate: null })
      .where('id', '=', takenAway)
      .execute();
    // Two grants at once: the one that began first took the lock second (it starts after).
    const raced = await member('raced');
    await grantAsBefore(db, raced, 7, at(5));
    await grantAsBefore(db, raced, 30, at(5), at(4.9));
    // A year's pass cut short by hand, then a month bought on top of what was left.
    const cutBetween = await member('cut-between');
    await grantAsBefore(db, cutBetween, 365, at(6));
    await db
      .updateTable('users')
      .set({ subscriptionEndDate: at(8) })
      .where('id', '=', cutBetween)
      .execute();
    await grantAsBefore(db, cutBetween, 30, at(7));
    const never = await member('never');
    const members = [
      stacked,
      byHand,
      handThenBought,
      boughtThenHand,
      cutShort,
      takenAway,
      raced,
      cutBetween,
      never,
    ];

    // To the microsecond, as stored.
    const storedEnds = () =>
      sql<{ id: string; end: string | null }>`
        select id, subscription_end_date::text as end from users order by id`
        .execute(db)
        .then((result) => result.rows);
    const endsBefore = await storedEnds();
    const periodsBefore = await db
      .selectFrom('purchases')
      .select(['id', 'startsAt', 'expiresAt'])
      .orderBy('id')
      .execute();
    await before.close();
    cleanups.pop();

    const after = await open(database, LEDGER_MIGRATION);
    expect(after.appliedMigrations).toEqual([LEDGER_MIGRATION]);
    expect(
      await sql<{ id: string; end: string | null }>`
        select id, subscription_end_date::text as end from users order by id`
        .execute(after.db)
        .then((result) => result.rows),
    ).toEqual(endsBefore);

    // And the ledger gives every member the end he has, and every purchase its period.
    await after.db.transaction().execute(async (transaction) => {
      for (const userId of members) {
        const state = foldLedger(await ledgerRepo.listEntries(transaction, userId));
        const stored = await transaction
          .selectFrom('users')
          .select('subscriptionEndDate')
          .where('id', '=', userId)
          .executeTakeFirstOrThrow();
        expect(state.endsAt?.toISOString() ?? null, userId).toBe(
          stored.subscriptionEndDate?.toISOString() ?? null,
        );
      }
      for (const purchase of periodsBefore) {
        const { userId } = await transaction
          .selectFrom('purchases')
          .select('userId')
          .where('id', '=', purchase.id)
          .executeTakeFirstOrThrow();
        if (userId === null) throw new Error(`purchase ${purchase.id} lost its buyer`);
        const state = foldLedger(await ledgerRepo.listEntries(transaction, userId));
        expect(state.periods.get(purchase.id)).toEqual({
          startsAt: purchase.startsAt,
          expiresAt: purchase.expiresAt,
        });
      }
    });
    const balances = await after.db
      .selectFrom('premiumLedger')
      .select('userId')
      .where('entry', '=', 'balance')
      .execute();
    // Only the members whose end the purchases do not explain get a balance.
    expect(balances.map((row) => row.userId).sort()).toEqual(
      [byHand, boughtThenHand, cutShort, takenAway, cutBetween].sort(),
    );
  }, 120_000);
});
