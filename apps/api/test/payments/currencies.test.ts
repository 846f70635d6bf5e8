// Money in every currency (docs/payments.md: "Amounts and currencies"): Stripe's amounts are in
// the minor units of their currency (JPY 1 is one yen, BHD 1000 one dinar), Apple's `price` in
// milliunits whatever the currency. Each kind bought through the real paths, then read where a
// person sees the amount: the member's data export, the support desk's story and timeline, and
// the refund mail.
import type { DataExport, MemberStory, Refund, TimelineResponse } from '@kegel/contract';
import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { post } from '../support/accounts';
import {
  appStoreEnv,
  deliverNotification,
  monthFrom,
  signedNotification,
  startTestAppStoreSandbox,
} from '../support/app-store';
import { deskCall, makeMember, type TestMember } from '../support/desk-actions';
import { makeOperator, type TestOperator } from '../support/operators';
import {
  checkoutEvent,
  deliverStripeEvent,
  newPaymentIntentId,
  payOnSandboxPage,
} from '../support/stripe-events';
import { startTestServer, type TestServer } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { useMovableClock } from '../support/two-step';

/** Intl puts a no-break space between a currency code and its number. */
function plain(text: string): string {
  return text.replaceAll('\u00a0', ' ');
}

describe.each(testDatabaseKinds)('amounts in every currency on $name', (kind) => {
  let server: TestServer;
  let appStore: AppStoreSandbox;
  let admin: TestOperator;
  beforeAll(async () => {
    appStore = await startTestAppStoreSandbox();
    server = await startTestServer(kind, { env: appStoreEnv(appStore) });
    // Listening for real: the Stripe sandbox delivers its webhooks over HTTP.
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    // A plan sold in yen: ¥1,200 is 1200 in Stripe's minor units.
    await server.app.database.db
      .insertInto('plans')
      .values({
        id: '1-week-jpy',
        name: '1 Week (JPY)',
        days: 7,
        priceCents: 1200,
        currency: 'jpy',
      })
      .execute();
  });
  afterAll(async () => {
    await server.close();
    await appStore.close();
  });
  beforeEach(async () => {
    useMovableClock();
    admin ??= await makeOperator(server.app, 'admin', 'money');
  });
  afterEach(() => vi.useRealTimers());

  async function exportedPurchases(member: TestMember) {
    const response = await deskCall(server.app, 'GET', '/users/export', member.accessToken);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<DataExport>().purchases;
  }

  async function deskPurchases(member: TestMember) {
    const response = await deskCall(
      server.app,
      'GET',
      `/ops/members/${member.userId}`,
      admin.accessToken,
    );
    expect(response.statusCode, response.body).toBe(200);
    return response.json<MemberStory>().purchases;
  }

  async function timelineTitles(member: TestMember): Promise<string[]> {
    const response = await deskCall(
      server.app,
      'GET',
      `/ops/members/${member.userId}/timeline`,
      admin.accessToken,
    );
    expect(response.statusCode, response.body).toBe(200);
    return response.json<TimelineResponse>().data.map((item) => plain(item.title));
  }

  async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  function notifyApple(member: TestMember, price: number, currency: string) {
    return deliverNotification(
      server.app,
      signedNotification(appStore, {
        type: 'SUBSCRIBED',
        subtype: 'INITIAL_BUY',
        transaction: monthFrom(Date.now(), { appAccountToken: member.userId, price, currency }),
      }),
    );
  }

  it('Stripe in yen: ¥1,200 paid on the sandbox is ¥1,200 in the export, on the desk and in the refund mail', async () => {
    const member = await makeMember(server.app, 'yen');
    const started = await post(
      server.app,
      '/payments/stripe/new',
      { planId: '1-week-jpy', email: member.email, price: 0 },
      member.accessToken,
    );
    expect(started.statusCode, started.body).toBe(200);
    expect((await payOnSandboxPage(started.json<{ paymentURL: string }>().paymentURL)).status).toBe(
      303,
    );
    const [purchase] = await eventually(
      () => deskPurchases(member),
      (rows) => rows.length > 0,
    );
    expect(purchase).toMatchObject({ amountCents: 1200, currency: 'jpy', refundable: true });
    expect(await exportedPurchases(member)).toEqual([
      expect.objectContaining({ amount: 1200, currency: 'jpy' }),
    ]);
    expect(await timelineTitles(member)).toContain('Bought 1 Week (JPY) (¥1,200) with Stripe');

    const refund = await deskCall(
      server.app,
      'POST',
      `/ops/purchases/${purchase!.id}/refund`,
      admin.accessToken,
      { amountCents: 500, reason: 'goodwill' },
    );
    expect(refund.statusCode, refund.body).toBe(200);
    expect(refund.json<Refund>()).toMatchObject({ amountCents: 500, currency: 'jpy' });
    const mail = await server.inbox.waitFor(
      (email) => email.to.includes(member.email) && email.subject.startsWith('We refunded'),
    );
    expect(mail.subject).toBe('We refunded ¥500 of your Kegel Coach purchase');
    await eventually(
      () => exportedPurchases(member),
      (rows) => rows[0]?.refundedAmount === 500,
    );
  });

  it('Stripe in Bahraini dinars: 1500 is BHD 1.500', async () => {
    const member = await makeMember(server.app, 'dinar');
    const paymentIntentId = newPaymentIntentId();
    const delivered = await deliverStripeEvent(
      server.app,
      checkoutEvent({ email: member.email, paymentIntentId, amountTotal: 1500, currency: 'bhd' }),
    );
    expect(delivered.statusCode, delivered.body).toBe(200);
    expect(await exportedPurchases(member)).toEqual([
      expect.objectContaining({ amount: 1.5, currency: 'bhd' }),
    ]);
    expect(await deskPurchases(member)).toEqual([
      expect.objectContaining({ amountCents: 1500, currency: 'bhd' }),
    ]);
    expect(await timelineTitles(member)).toContain('Bought 1 Week (BHD 1.500) with Stripe');
  });

  it('Stripe in US dollars is unchanged: 999 is $9.99', async () => {
    const member = await makeMember(server.app, 'dollar');
    await deliverStripeEvent(
      server.app,
      checkoutEvent({ email: member.email, paymentIntentId: newPaymentIntentId() }),
    );
    expect(await exportedPurchases(member)).toEqual([
      expect.objectContaining({ amount: 9.99, currency: 'usd' }),
    ]);
    expect(await deskPurchases(member)).toEqual([
      expect.objectContaining({ amountCents: 999, currency: 'usd' }),
    ]);
    expect(await timelineTitles(member)).toContain('Bought 1 Week ($9.99) with Stripe');
  });

  it('Apple in yen: a price of 1200000 milliunits is ¥1,200 (1200 minor units)', async () => {
    const member = await makeMember(server.app, 'apple-yen');
    expect((await notifyApple(member, 1_200_000, 'JPY')).statusCode).toBe(200);
    expect(await deskPurchases(member)).toEqual([
      expect.objectContaining({ amountCents: 1200, currency: 'jpy' }),
    ]);
    expect(await exportedPurchases(member)).toEqual([
      expect.objectContaining({ amount: 1200, currency: 'jpy' }),
    ]);
    expect(await timelineTitles(member)).toContain('Bought 1 Month (¥1,200) with the App Store');
  });

  it('Apple in Kuwaiti dinars: a price of 2750 milliunits is KWD 2.750 (2750 minor units)', async () => {
    const member = await makeMember(server.app, 'apple-dinar');
    expect((await notifyApple(member, 2750, 'KWD')).statusCode).toBe(200);
    expect(await deskPurchases(member)).toEqual([
      expect.objectContaining({ amountCents: 2750, currency: 'kwd' }),
    ]);
    expect(await exportedPurchases(member)).toEqual([
      expect.objectContaining({ amount: 2.75, currency: 'kwd' }),
    ]);
    expect(await timelineTitles(member)).toContain('Bought 1 Month (KWD 2.750) with the App Store');
  });

  it('Apple in US dollars is unchanged: 9990 milliunits is $9.99', async () => {
    const member = await makeMember(server.app, 'apple-dollar');
    expect((await notifyApple(member, 9990, 'USD')).statusCode).toBe(200);
    expect(await deskPurchases(member)).toEqual([
      expect.objectContaining({ amountCents: 999, currency: 'usd' }),
    ]);
    expect(await exportedPurchases(member)).toEqual([
      expect.objectContaining({ amount: 9.99, currency: 'usd' }),
    ]);
  });
});
