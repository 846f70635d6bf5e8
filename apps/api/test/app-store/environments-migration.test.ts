import { randomUUID } from 'node:crypto';

import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { openDatabase } from '../../src/db/database';
import { registerAndLogin } from '../support/accounts';
import {
  appStoreEnv,
  monthFrom,
  postTransaction,
  transactionPayload,
  startTestAppStoreSandbox,
} from '../support/app-store';
import { buildTestApp, testConfig, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const BEFORE_ENVIRONMENTS = '0014-stripe-customer-deletions.sql';
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Keying App Store rows with their environment (migrations/0015) keeps what was waiting: a
 * notification kept, before the upgrade, for a subscription bound to no account is applied after
 * it, when the member's app posts the subscription's transaction.
 */
describe.each(testDatabaseKinds)('the App Store environments migration on $name', (kind) => {
  let sandbox: AppStoreSandbox;
  const cleanups: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    sandbox = await startTestAppStoreSandbox();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('applies a notification kept before the upgrade once the transaction is posted after it', async () => {
    const database = await kind.create({ empty: true });
    cleanups.push(() => database.drop());
    const first = monthFrom(Date.now() - 10 * DAY_MS);
    const renewal = {
      ...first,
      transactionId: `${first.originalTransactionId}2`,
      purchaseDate: first.expiresDate,
      expiresDate: first.expiresDate + 30 * DAY_MS,
    };
    const signedAt = Date.now() - 60_000;

    // What the server before the upgrade wrote for a DID_RENEW of a subscription without a
    // token, bound to nobody: the subscription's state, and the verified notification, kept.
    const before = await openDatabase(testConfig(database).database, {
      through: BEFORE_ENVIRONMENTS,
    });
    const notificationUuid = randomUUID();
    await before.db
      .insertInto('appStoreSubscriptions')
      .values({
        originalTransactionId: first.originalTransactionId,
        userId: null,
        environment: 'Sandbox',
        productId: 'premium.month',
        autoRenew: true,
        status: null,
        gracePeriodExpiresAt: null,
        signedAt: new Date(signedAt),
      })
      .execute();
    // As it was written then: without the environment column the upgrade adds.
    const keptRow = {
      notificationUuid,
      notificationType: 'DID_RENEW',
      subtype: null,
      originalTransactionId: first.originalTransactionId,
      signedAt: new Date(signedAt),
      payload: JSON.stringify({
        notificationUuid,
        type: 'DID_RENEW',
        subtype: null,
        signedAt,
        environment: 'Sandbox',
        transaction: transactionPayload({ ...renewal, signedDate: signedAt }),
      }),
      appliedAt: null,
    };
    await before.db.insertInto('appStoreNotifications').values(keptRow).execute();
    await before.close();

    const app: FastifyInstance = await buildTestApp(database, { env: appStoreEnv(sandbox) });
    cleanups.push(() => app.close());
    const member = await registerAndLogin(app, uniqueEmail('upgraded'), 'correct horse');
    const posted = await postTransaction(
      app,
      member.accessToken,
      sandbox.sign(transactionPayload(first)),
    );
    expect(posted.statusCode, posted.body).toBe(200);
    expect(posted.json()).toEqual({
      subscriptionEndDate: new Date(renewal.expiresDate).toISOString(),
    });
  }, 120_000);
});
