import { afterEach, describe, expect, it } from 'vitest';

import { openDatabase } from '../../src/db/database';
import { testConfig } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const BEFORE_MINOR_UNITS = '0021-member-preferences.sql';

/**
 * App Store purchases recorded before amounts were minor units of their currency (migrations/
 * 0025) held Apple's milliunits / 10: right for dollars, 100 times too much for yen, 10 times too
 * little for dinars. The upgrade rewrites those; Stripe's rows and two-decimal rows stay.
 */
describe.each(testDatabaseKinds)('the minor units migration on $name', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('rewrites App Store amounts in zero- and three-decimal currencies, and nothing else', async () => {
    const database = await kind.create({ empty: true });
    cleanups.push(() => database.drop());
    const before = await openDatabase(testConfig(database).database, {
      through: BEFORE_MINOR_UNITS,
    });
    const rows = [
      { provider: 'Apple', id: 'apple-jpy', amountCents: 120_000, currency: 'jpy' },
      { provider: 'Apple', id: 'apple-kwd', amountCents: 275, currency: 'kwd' },
      { provider: 'Apple', id: 'apple-usd', amountCents: 999, currency: 'usd' },
      { provider: 'Stripe', id: 'stripe-jpy', amountCents: 1200, currency: 'jpy' },
      { provider: 'Stripe', id: 'stripe-bhd', amountCents: 1500, currency: 'bhd' },
    ] as const;
    const now = new Date();
    for (const row of rows) {
      await before.db
        .insertInto('purchases')
        .values({
          userId: null,
          planId: null,
          planName: '1 Month',
          provider: row.provider,
          providerPaymentId: row.id,
          amountCents: row.amountCents,
          currency: row.currency,
          days: 30,
          startsAt: now,
          expiresAt: now,
          environment: row.provider === 'Apple' ? 'Sandbox' : null,
        })
        .execute();
    }
    await before.close();

    const after = await openDatabase(testConfig(database).database);
    cleanups.push(() => after.close());
    const amounts = await after.db
      .selectFrom('purchases')
      .select(['providerPaymentId', 'amountCents'])
      .orderBy('providerPaymentId')
      .execute();
    expect(
      Object.fromEntries(amounts.map((row) => [row.providerPaymentId, row.amountCents])),
    ).toEqual({
      'apple-jpy': 1200,
      'apple-kwd': 2750,
      'apple-usd': 999,
      'stripe-bhd': 1500,
      'stripe-jpy': 1200,
    });
  }, 120_000);
});
