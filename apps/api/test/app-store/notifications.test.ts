import { randomUUID } from 'node:crypto';

import type { PurchasesResponse } from '@kegel/contract';
import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createAppStoreService } from '../../src/modules/app-store/service';
import { getProfile, registerAndLogin } from '../support/accounts';
import {
  appStoreEnv,
  deliverNotification,
  monthFrom,
  postTransaction,
  signedNotification,
  transactionPayload,
  startTestAppStoreSandbox,
} from '../support/app-store';
import { checkoutEvent, deliverStripeEvent } from '../support/stripe-events';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * App Store purchases through Apple's own verifier, with certificate chains the App Store sandbox
 * makes: every notification type, refusals that write nothing, order and duplicates, bindings.
 */
describe.each(testDatabaseKinds)('App Store purchases on $name', (kind) => {
  let sandbox: AppStoreSandbox;
  let server: TestServer;
  let refusingSandbox: TestServer;
  beforeAll(async () => {
    sandbox = await startTestAppStoreSandbox();
    server = await startTestServer(kind, { env: appStoreEnv(sandbox) });
    refusingSandbox = await startTestServer(kind, {
      env: appStoreEnv(sandbox, { APPLE_REFUSE_SANDBOX: 'true' }),
    });
  });
  afterAll(async () => {
    await server.close();
    await refusingSandbox.close();
    await sandbox.close();
  });

  async function member(label: string) {
    const email = uniqueEmail(label);
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    const { id } = await server.app.database.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    return { id, email, accessToken: tokens.accessToken };
  }

  async function premiumEnd(accessToken: string): Promise<number | null> {
    const profile = (await getProfile(server.app, accessToken)).json<{
      subscriptionEndDate: string | null;
    }>();
    return profile.subscriptionEndDate ? new Date(profile.subscriptionEndDate).getTime() : null;
  }

  async function notify(facts: Parameters<typeof signedNotification>[1], app = server.app) {
    return deliverNotification(app, signedNotification(sandbox, facts));
  }

  async function notificationsWritten(app = server.app): Promise<number> {
    const rows = await app.database.db
      .selectFrom('appStoreNotifications')
      .select('notificationUuid')
      .execute();
    return rows.length;
  }

  it('grants a subscription to the account its appAccountToken names, until the period ends', async () => {
    const { id, accessToken } = await member('subscribed');
    const now = Date.now();
    const period = monthFrom(now, { appAccountToken: id });
    const response = await notify({
      type: 'SUBSCRIBED',
      subtype: 'INITIAL_BUY',
      transaction: period,
    });
    expect(response.json()).toEqual({ received: true });
    expect(await premiumEnd(accessToken)).toBe(period.expiresDate);
    const list = await server.app.inject({
      method: 'GET',
      url: '/api/users/subscriptions/personal',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(list.json<PurchasesResponse>().data).toEqual([
      {
        name: '1 Month',
        provider: 'Apple',
        createdAt: expect.any(String),
        expiresAt: new Date(period.expiresDate).toISOString(),
      },
    ]);
  });

  it('follows renewals, auto-renew changes, grace periods, expiry, refunds, revocations and reversals', async () => {
    const { id, accessToken } = await member('lifecycle');
    const start = Date.now() - 40 * DAY_MS;
    const first = monthFrom(start, { appAccountToken: id });
    const otid = first.originalTransactionId;
    // Signed in the last minute, a second apart (the certificates are as new as the sandbox).
    let signed = Date.now() - 60_000;
    const at = () => (signed += 1000);
    await notify({
      type: 'SUBSCRIBED',
      subtype: 'INITIAL_BUY',
      transaction: first,
      signedDate: at(),
    });
    const second = {
      ...first,
      transactionId: `${otid}2`,
      purchaseDate: first.expiresDate,
      expiresDate: first.expiresDate + 30 * DAY_MS,
    };

    expect(
      (await notify({ type: 'DID_RENEW', transaction: second, signedDate: at() })).statusCode,
    ).toBe(200);
    expect(await premiumEnd(accessToken)).toBe(second.expiresDate);

    await notify({
      type: 'DID_CHANGE_RENEWAL_STATUS',
      subtype: 'AUTO_RENEW_DISABLED',
      transaction: second,
      autoRenew: false,
      signedDate: at(),
    });
    expect(await premiumEnd(accessToken)).toBe(second.expiresDate);
    const state = await server.app.database.db
      .selectFrom('appStoreSubscriptions')
      .select(['autoRenew', 'userId'])
      .where('originalTransactionId', '=', otid)
      .executeTakeFirstOrThrow();
    expect(state).toEqual({ autoRenew: false, userId: id });

    const grace = second.expiresDate + 6 * DAY_MS;
    await notify({
      type: 'DID_FAIL_TO_RENEW',
      subtype: 'GRACE_PERIOD',
      transaction: second,
      gracePeriodExpiresDate: grace,
      status: 4,
      signedDate: at(),
    });
    expect(await premiumEnd(accessToken)).toBe(grace);
    await notify({
      type: 'GRACE_PERIOD_EXPIRED',
      transaction: second,
      status: 2,
      signedDate: at(),
    });
    await notify({
      type: 'EXPIRED',
      subtype: 'BILLING_RETRY',
      transaction: second,
      status: 2,
      signedDate: at(),
    });
    expect(await premiumEnd(accessToken)).toBe(grace);

    await notify({
      type: 'REFUND',
      transaction: { ...second, revocationDate: Date.now() },
      signedDate: at(),
    });
    expect(await premiumEnd(accessToken)).toBe(first.expiresDate);
    await notify({ type: 'REFUND_REVERSED', transaction: second, signedDate: at() });
    expect(await premiumEnd(accessToken)).toBe(grace);
    await notify({
      type: 'REVOKE',
      transaction: { ...second, revocationDate: Date.now() },
      signedDate: at(),
    });
    expect(await premiumEnd(accessToken)).toBe(first.expiresDate);
  });

  it('answers DID_FAIL_TO_RENEW without a grace period, and TEST, with 200 and no premium', async () => {
    const { id, accessToken } = await member('no-grace');
    const period = monthFrom(Date.now() - 31 * DAY_MS, { appAccountToken: id });
    await notify({ type: 'SUBSCRIBED', subtype: 'INITIAL_BUY', transaction: period });
    expect(
      (await notify({ type: 'DID_FAIL_TO_RENEW', transaction: period, status: 3 })).statusCode,
    ).toBe(200);
    expect(await premiumEnd(accessToken)).toBe(period.expiresDate);
    expect((await notify({ type: 'TEST' })).json()).toEqual({ received: true });
  });

  it('refuses an unknown root, a wrong bundle id and a tampered payload with 400, writing nothing', async () => {
    const { id } = await member('refused');
    const before = await notificationsWritten();
    const period = monthFrom(Date.now(), { appAccountToken: id });
    const untrusted = await notify({ type: 'SUBSCRIBED', transaction: period, untrusted: true });
    const wrongApp = await notify({
      type: 'SUBSCRIBED',
      transaction: period,
      bundleId: 'com.someone.else',
    });
    const genuine = signedNotification(sandbox, { type: 'SUBSCRIBED', transaction: period });
    const [header, payload, signature] = genuine.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, notificationType: 'DID_RENEW' })).toString('base64url')}.${signature}`;
    const forged = await deliverNotification(server.app, tampered);
    for (const response of [untrusted, wrongApp, forged]) {
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json<{ message: string }>().message).toMatch(
        /^The App Store payload could not be verified/,
      );
    }
    expect(await notificationsWritten()).toBe(before);
    const written = await server.app.database.db
      .selectFrom('purchases')
      .select('id')
      .where('userId', '=', id)
      .execute();
    expect(written).toEqual([]);
    expect(
      await server.app.database.db
        .selectFrom('appStoreSubscriptions')
        .select('originalTransactionId')
        .where('originalTransactionId', '=', period.originalTransactionId)
        .execute(),
    ).toEqual([]);
  });

  it('honours Sandbox payloads unless APPLE_REFUSE_SANDBOX, and verifies Production ones against the app id', async () => {
    const { id, accessToken } = await member('environments');
    const sandboxPeriod = monthFrom(Date.now(), { appAccountToken: id });
    expect(
      (await notify({ type: 'SUBSCRIBED', transaction: sandboxPeriod }, refusingSandbox.app))
        .statusCode,
    ).toBe(400);
    expect(await notificationsWritten(refusingSandbox.app)).toBe(0);

    const production = monthFrom(Date.now(), {
      appAccountToken: id,
      environment: 'Production',
      expiresDate: Date.now() + 60 * DAY_MS,
    });
    const wrongAppId = await notify({
      type: 'SUBSCRIBED',
      transaction: production,
      environment: 'Production',
      appAppleId: 42,
    });
    expect(wrongAppId.statusCode).toBe(400);
    const right = await notify({
      type: 'SUBSCRIBED',
      transaction: production,
      environment: 'Production',
    });
    expect(right.statusCode, right.body).toBe(200);
    expect(await premiumEnd(accessToken)).toBe(production.expiresDate);
    const environments = await server.app.database.db
      .selectFrom('purchases')
      .select('environment')
      .where('userId', '=', id)
      .execute();
    expect(environments).toEqual([{ environment: 'Production' }]);
  });

  it('applies one notification delivered ten times at once, once', async () => {
    const { id, accessToken } = await member('ten');
    const payload = signedNotification(sandbox, {
      type: 'SUBSCRIBED',
      transaction: monthFrom(Date.now(), { appAccountToken: id }),
    });
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => deliverNotification(server.app, payload)),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(10).fill(200));
    const rows = await server.app.database.db
      .selectFrom('premiumLedger')
      .select('entry')
      .where('userId', '=', id)
      .execute();
    expect(rows).toEqual([{ entry: 'period' }]);
    expect(await premiumEnd(accessToken)).not.toBeNull();
  });

  it('ends in the right period when DID_RENEW comes before SUBSCRIBED, and a late renewal does not undo a refund', async () => {
    const { id, accessToken } = await member('order');
    const first = monthFrom(Date.now() - 10 * DAY_MS, { appAccountToken: id });
    const second = {
      ...first,
      transactionId: `${first.originalTransactionId}2`,
      purchaseDate: first.expiresDate,
      expiresDate: first.expiresDate + 30 * DAY_MS,
    };
    const renewal = signedNotification(sandbox, {
      type: 'DID_RENEW',
      transaction: second,
      signedDate: Date.now() - 2000,
    });
    // The renewal arrives first; the first purchase's SUBSCRIBED, signed before it, after.
    await deliverNotification(server.app, renewal);
    expect(await premiumEnd(accessToken)).toBe(second.expiresDate);
    await notify({ type: 'SUBSCRIBED', transaction: first, signedDate: Date.now() - 3000 });
    expect(await premiumEnd(accessToken)).toBe(second.expiresDate);

    // A refund of the renewal signed after it, then the renewal delivered again (Apple retries).
    await notify({
      type: 'REFUND',
      transaction: { ...second, revocationDate: Date.now() },
      signedDate: Date.now() - 1000,
    });
    const late = signedNotification(sandbox, {
      type: 'DID_RENEW',
      transaction: second,
      signedDate: Date.now() - 2000,
    });
    expect((await deliverNotification(server.app, late)).statusCode).toBe(200);
    expect(await premiumEnd(accessToken)).toBe(first.expiresDate);
  });

  it('lets the latest signed word on a refund win, whatever order refunds and reversals arrive in', async () => {
    const { id, accessToken } = await member('refund-order');
    const base = Date.now() - 60_000;
    const period = monthFrom(Date.now(), { appAccountToken: id });
    await notify({ type: 'SUBSCRIBED', transaction: period, signedDate: base });
    const refunded = { ...period, revocationDate: base + 1000 };
    const refund1 = signedNotification(sandbox, {
      type: 'REFUND',
      transaction: refunded,
      signedDate: base + 1000,
    });
    const reversed = signedNotification(sandbox, {
      type: 'REFUND_REVERSED',
      transaction: period,
      signedDate: base + 3000,
    });
    const refund2 = signedNotification(sandbox, {
      type: 'REFUND',
      transaction: refunded,
      signedDate: base + 4000,
    });

    // The reversal delivered before the refund it reverses: it still counts.
    await deliverNotification(server.app, reversed);
    await deliverNotification(server.app, refund1);
    expect(await premiumEnd(accessToken)).toBe(period.expiresDate);
    // A later refund wins over the reversal, delivered before or after it.
    await deliverNotification(server.app, refund2);
    expect(await premiumEnd(accessToken)).toBeNull();
    await deliverNotification(server.app, reversed);
    expect(await premiumEnd(accessToken)).toBeNull();
  });

  it("grants to the account a notification's token names, even on a subscription bound to another", async () => {
    const first = await member('shared-first');
    const second = await member('shared-second');
    const lapsed = monthFrom(Date.now() - 40 * DAY_MS);
    expect(
      (
        await postTransaction(
          server.app,
          first.accessToken,
          sandbox.sign(transactionPayload(lapsed)),
        )
      ).statusCode,
    ).toBe(200);
    // The same Apple ID resubscribes in the app signed in as the second member.
    const resubscribed = {
      ...lapsed,
      transactionId: `${lapsed.originalTransactionId}9`,
      purchaseDate: Date.now(),
      expiresDate: Date.now() + 30 * DAY_MS,
      appAccountToken: second.id,
    };
    await notify({ type: 'SUBSCRIBED', subtype: 'RESUBSCRIBE', transaction: resubscribed });
    expect(await premiumEnd(second.accessToken)).toBe(resubscribed.expiresDate);
    expect(await premiumEnd(first.accessToken)).toBe(lapsed.expiresDate);
    const posted = await postTransaction(
      server.app,
      second.accessToken,
      sandbox.sign(transactionPayload(resubscribed)),
    );
    expect(posted.statusCode).toBe(200);
  });

  it('binds a posted transaction to the signed-in member and applies what was kept for it; another account gets 403', async () => {
    const owner = await member('binder');
    const other = await member('other');
    const period = monthFrom(Date.now());
    // No token: nobody to grant to yet, kept.
    await notify({ type: 'SUBSCRIBED', transaction: period });
    const renewed = {
      ...period,
      transactionId: `${period.originalTransactionId}2`,
      purchaseDate: period.expiresDate,
      expiresDate: period.expiresDate + 30 * DAY_MS,
    };
    await notify({ type: 'DID_RENEW', transaction: renewed });
    expect(await premiumEnd(owner.accessToken)).toBeNull();

    const posted = await postTransaction(
      server.app,
      owner.accessToken,
      sandbox.sign(transactionPayload(period)),
    );
    expect(posted.json()).toEqual({
      subscriptionEndDate: new Date(renewed.expiresDate).toISOString(),
    });
    const stolen = await postTransaction(
      server.app,
      other.accessToken,
      sandbox.sign(transactionPayload(period)),
    );
    expect(stolen.statusCode).toBe(403);
    expect(stolen.json<{ message: string }>().message).toBe(
      'This App Store purchase belongs to another account',
    );
    const tokenForOwner = await postTransaction(
      server.app,
      other.accessToken,
      sandbox.sign(transactionPayload(monthFrom(Date.now(), { appAccountToken: owner.id }))),
    );
    expect(tokenForOwner.statusCode).toBe(403);
    expect(await premiumEnd(other.accessToken)).toBeNull();
    const forged = await postTransaction(
      server.app,
      other.accessToken,
      sandbox.sign(transactionPayload(monthFrom(Date.now())), { untrusted: true }),
    );
    expect(forged.statusCode).toBe(400);
  });

  it('gives a web pass plus an App Store subscription the later end; refunding the subscription leaves the pass', async () => {
    const { id, email, accessToken } = await member('both');
    await deliverStripeEvent(server.app, checkoutEvent({ email, planId: '1-week' }));
    const pass = (await premiumEnd(accessToken))!;
    const subscription = monthFrom(Date.now(), { appAccountToken: id });
    await notify({ type: 'SUBSCRIBED', transaction: subscription });
    expect(await premiumEnd(accessToken)).toBe(subscription.expiresDate);
    await notify({ type: 'REFUND', transaction: { ...subscription, revocationDate: Date.now() } });
    expect(await premiumEnd(accessToken)).toBe(pass);
  });

  it('answers 404 when App Store support is off (production without APPLE_BUNDLE_ID)', async () => {
    const off = createAppStoreService({ db: server.app.database.db, verifier: null });
    await expect(off.receiveNotification('x.y.z')).rejects.toMatchObject({ statusCode: 404 });
    await expect(off.recordTransaction(randomUUID(), 'x.y.z')).rejects.toMatchObject({
      statusCode: 404,
    });
  });
});
