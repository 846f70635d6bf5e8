import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { clockOffsetMs, setClockOffsetMs } from '../../src/dev-clock/shifted-date';
import { claimsOf, startTestAppStoreSandbox } from '../support/app-store';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The App Store sandbox as the development clock moves (app-store-clock.ts): what Apple does on
 * its own as days pass, each a signed notification, in order.
 */
describe('the App Store sandbox when the clock moves', () => {
  let sandbox: AppStoreSandbox;
  // A sandbox per test: the clock goes back to real time after each.
  beforeEach(async () => {
    sandbox = await startTestAppStoreSandbox({
      products: [{ productId: 'premium.week', name: '1 Week', days: 7, priceMilliunits: 9990 }],
    });
  });
  afterEach(async () => {
    setClockOffsetMs(0);
    await sandbox.close();
  });

  const moveDays = async (days: number) => {
    setClockOffsetMs(clockOffsetMs() + days * DAY_MS);
    return (await sandbox.clockMoved()).map((signedPayload) => {
      const { notificationType, subtype } = claimsOf(signedPayload) as {
        notificationType: string;
        subtype?: string;
      };
      return subtype ? `${notificationType}/${subtype}` : notificationType;
    });
  };

  it('renews once per period passed with auto-renew on, and expires a subscription with it off', async () => {
    const renewing = await sandbox.subscribe({ productId: 'premium.week' });
    const lapsing = await sandbox.subscribe({ productId: 'premium.week' });
    await sandbox.setAutoRenew(lapsing.originalTransactionId, false);
    expect(await moveDays(3)).toEqual([]);
    expect(await moveDays(19)).toEqual([
      'DID_RENEW',
      'DID_RENEW',
      'DID_RENEW',
      'EXPIRED/VOLUNTARY',
    ]);
    expect(sandbox.orderIdsOf(renewing.originalTransactionId)).toHaveLength(4);
    // Nothing twice: the periods are now after now, and the lapsed one is over.
    expect(await moveDays(0.5)).toEqual([]);
    expect(await moveDays(7)).toEqual(['DID_RENEW']);
  });

  it('ends a grace period that ended, and gives up billing retry after 60 days', async () => {
    const failing = await sandbox.subscribe({ productId: 'premium.week' });
    await sandbox.failToRenew(failing.originalTransactionId, true);
    expect(await moveDays(5)).toEqual([]);
    expect(await moveDays(2)).toEqual(['GRACE_PERIOD_EXPIRED']);
    expect(await moveDays(30)).toEqual([]);
    expect(await moveDays(31)).toEqual(['EXPIRED/BILLING_RETRY']);
  });
});
