import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';

import { openDatabase } from '../../src/db/database';
import { purchasesRepo } from '../../src/modules/premium';
import { buildTestApp, testConfig } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const BEFORE_THE_PAYMENT_KEY = '0029-refresh-tokens-by-session.sql';
const THE_PAYMENT_KEY_BUILT = '0030-purchases-at-scale.sql';

/**
 * Migration 0030 rebuilds purchases' unique key with the payment id first, drops the payment id's
 * own index, indexes the ends of passes and support grants, and gives new purchases time-ordered
 * ids. A payment recorded before it is still
 * recorded once, per environment, and the reads by the payment id alone still find it.
 */
describe.each(testDatabaseKinds)("purchases' payment key rebuilt on $name", (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('keeps each payment once, finds it by its id alone, and numbers new purchases by time', async () => {
    const database = await kind.create({ empty: true });
    cleanups.push(() => database.drop());
    const before = await openDatabase(testConfig(database).database, {
      through: BEFORE_THE_PAYMENT_KEY,
    });
    const user = await before.db
      .insertInto('users')
      .values({ email: 'bought.before@example.com' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const purchase = (provider: 'Stripe' | 'Apple', paymentId: string, environment?: string) => ({
      userId: user.id,
      planId: '1-week',
      planName: '1 Week',
      provider,
      providerPaymentId: paymentId,
      ...(environment ? { environment } : {}),
      amountCents: 999,
      currency: 'usd',
      days: 7,
      startsAt: new Date(),
      expiresAt: new Date(),
    });
    await before.db
      .insertInto('purchases')
      .values([
        purchase('Stripe', 'cs_test_before'),
        purchase('Apple', '2000000000000001', 'Production'),
      ])
      .execute();
    await before.close();

    const app = await buildTestApp(database);
    cleanups.push(() => app.close());
    const { db } = app.database;
    const insert = (values: ReturnType<typeof purchase>) =>
      db.transaction().execute((transaction) => purchasesRepo.insertPurchase(transaction, values));

    expect(await insert(purchase('Stripe', 'cs_test_before'))).toBeUndefined();
    expect(await insert(purchase('Apple', '2000000000000001', 'Production'))).toBeUndefined();
    // The same transaction id in the other environment is another payment.
    expect(await insert(purchase('Apple', '2000000000000001', 'Sandbox'))).toBeDefined();

    const startedAt = Date.now();
    const newId = await insert(purchase('Stripe', 'cs_test_after'));
    expect(newId).toBeDefined();
    // Version 7: the first 48 bits are the Unix time in milliseconds.
    expect(newId![14]).toBe('7');
    const milliseconds = parseInt(newId!.replaceAll('-', '').slice(0, 12), 16);
    expect(Math.abs(milliseconds - startedAt)).toBeLessThan(60_000);

    const byPaymentId = await db
      .selectFrom('purchases')
      .select(['provider', 'environment'])
      .where('providerPaymentId', '=', '2000000000000001')
      .orderBy('environment')
      .execute();
    expect(byPaymentId).toEqual([
      { provider: 'Apple', environment: 'Production' },
      { provider: 'Apple', environment: 'Sandbox' },
    ]);

    const indexes = await sql<{ name: string; definition: string }>`
      select indexname as name, indexdef as definition from pg_indexes
      where tablename = 'purchases' order by indexname`.execute(db);
    expect(indexes.rows.map((index) => index.name)).toEqual([
      'purchases_ending',
      'purchases_payment_intent',
      'purchases_payment_key',
      'purchases_pkey',
      'purchases_user',
    ]);
    expect(indexes.rows[2]?.definition).toMatch(
      /UNIQUE INDEX .* \(provider_payment_id, provider, environment\) NULLS NOT DISTINCT/,
    );
  });

  it('runs 0030 again without ever leaving the payments unguarded: the old key goes in 0032', async () => {
    const database = await kind.create({ empty: true });
    cleanups.push(() => database.drop());
    const options = testConfig(database).database;
    const keysOfPurchases = async (db: Awaited<ReturnType<typeof openDatabase>>['db']) =>
      (
        await sql<{ name: string }>`
          select indexname as name from pg_indexes
          where tablename = 'purchases' and indexdef like 'CREATE UNIQUE INDEX%'
            and indexname <> 'purchases_pkey'
          order by indexname`.execute(db)
      ).rows.map((row) => row.name);

    const first = await openDatabase(options, { through: THE_PAYMENT_KEY_BUILT });
    expect(await keysOfPurchases(first.db)).toEqual([
      'purchases_payment',
      'purchases_payment_intent',
      'purchases_payment_key',
    ]);
    // As if the process had stopped after the file's last statement, before its record.
    await first.db
      .deleteFrom('schemaMigrations')
      .where('name', '=', THE_PAYMENT_KEY_BUILT)
      .execute();
    await first.close();
    const again = await openDatabase(options, { through: THE_PAYMENT_KEY_BUILT });
    expect(await keysOfPurchases(again.db)).toEqual([
      'purchases_payment',
      'purchases_payment_intent',
      'purchases_payment_key',
    ]);
    await again.close();

    const app = await buildTestApp(database);
    cleanups.push(() => app.close());
    expect(await keysOfPurchases(app.database.db)).toEqual([
      'purchases_payment_intent',
      'purchases_payment_key',
    ]);
  });

  it('finds a reminder by its outbox mail (0031), as the stale mails and an account deleted look for it', async () => {
    const database = await kind.create({ empty: true });
    cleanups.push(() => database.drop());
    const app = await buildTestApp(database);
    cleanups.push(() => app.close());
    const indexes = await sql<{ definition: string }>`
      select indexdef as definition from pg_indexes
      where tablename = 'premium_expiry_reminders'
        and indexname = 'premium_expiry_reminders_outbox_email'`.execute(app.database.db);
    expect(indexes.rows[0]?.definition).toMatch(
      /\(outbox_email_id\) WHERE \(outbox_email_id IS NOT NULL\)/,
    );
  });
});
