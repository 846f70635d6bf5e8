// A member's page on the support desk (ADR 020): his story, his timeline page by page, and the
// view as him, through HTTP, for a member who bought through the Stripe sandbox, subscribed on
// the App Store, failed a sign-in and changed his email. Opening his page is audited.
import type { MemberStory, MemberView, TimelineItem, TimelineResponse } from '@kegel/contract';
import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { readMemberTimeline } from '../../src/modules/support-desk/member-timeline';
import {
  askForEmailChange,
  changeEmailThroughLink,
  post,
  registerAndLogin,
} from '../support/accounts';
import {
  appStoreEnv,
  deliverNotification,
  monthFrom,
  postTransaction,
  signedNotification,
  startTestAppStoreSandbox,
  transactionPayload,
} from '../support/app-store';
import { callApi, makeOperator, testAuditTrail, type TestOperator } from '../support/operators';
import {
  chargeRefundedEvent,
  checkoutEvent,
  deliverStripeEvent,
  disputeEvent,
  newDisputeId,
  newPaymentIntentId,
  payOnSandboxPage,
} from '../support/stripe-events';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { useMovableClock } from '../support/two-step';

const PASSWORD = 'correct horse';
const OPERATOR_ADDRESS = '198.51.100.23';

describe.each(testDatabaseKinds)("a member's story on the support desk on $name", (kind) => {
  let server: TestServer;
  let appStore: AppStoreSandbox;
  beforeAll(async () => {
    appStore = await startTestAppStoreSandbox();
    server = await startTestServer(kind, { env: appStoreEnv(appStore) });
    // The Stripe sandbox delivers its webhooks to the listening server.
    await server.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await server.close();
    await appStore.close();
  });
  beforeEach(() => useMovableClock());
  afterEach(() => vi.useRealTimers());

  function opsGet(operator: TestOperator, url: string) {
    return server.app.inject({
      method: 'GET',
      url: `/api${url}`,
      headers: { authorization: `Bearer ${operator.accessToken}` },
      remoteAddress: OPERATOR_ADDRESS,
    });
  }

  async function memberIdOf(accessToken: string): Promise<string> {
    const profile = await callApi(server.app, 'GET', '/users/profile', accessToken);
    return profile.json<{ id: string }>().id;
  }

  async function purchaseCount(userId: string): Promise<number> {
    const rows = await server.app.database.db
      .selectFrom('purchases')
      .select('id')
      .where('userId', '=', userId)
      .execute();
    return rows.length;
  }

  /** Every item of the timeline, following the cursor through HTTP. */
  async function wholeTimeline(operator: TestOperator, memberId: string) {
    const items: TimelineItem[] = [];
    const bodies: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
      const response = await opsGet(operator, `/ops/members/${memberId}/timeline${query}`);
      expect(response.statusCode, response.body).toBe(200);
      bodies.push(response.body);
      const page = response.json<TimelineResponse>();
      items.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    return { items, bodies };
  }

  /**
   * Moves the test's clock (faked by makeOperator, and PGlite's `now()` reads it) a second on, so
   * that the next step is stamped after the last: the fake clock only advances when a real timer
   * ticks, which a loaded machine may not do between two steps, and two rows of one moment have
   * no order of their own.
   */
  const nextMoment = () => vi.setSystemTime(Date.now() + 1_000);

  it('shows the profile, purchases, App Store subscription and timeline of a member, in order, without any mailed code', async () => {
    const operator = await makeOperator(server.app, 'support', 'story');
    const email = uniqueEmail('story');
    const newEmail = uniqueEmail('story-moved');
    const member = await registerAndLogin(server.app, email, PASSWORD);
    const memberId = await memberIdOf(member.accessToken);

    // A wrong password.
    const failed = await post(server.app, '/auth/local/login/email', {
      email,
      password: 'wrong guess',
    });
    expect(failed.statusCode).toBe(401);
    nextMoment();

    // A Stripe Checkout paid on the sandbox's page.
    const checkout = await post(server.app, '/payments/stripe/new', { planId: '1-week', email });
    expect(checkout.statusCode, checkout.body).toBe(200);
    const paid = await payOnSandboxPage(checkout.json<{ paymentURL: string }>().paymentURL);
    expect(paid.status).toBe(303);
    await expect.poll(() => purchaseCount(memberId), { timeout: 10_000 }).toBe(1);
    nextMoment();

    // An App Store subscription bound by the iOS app, then Apple's notice that renewal is off.
    const period = monthFrom(Date.now(), { appAccountToken: memberId });
    const bound = await postTransaction(
      server.app,
      member.accessToken,
      appStore.sign(transactionPayload(period)),
    );
    expect(bound.statusCode, bound.body).toBe(200);
    nextMoment();
    const notified = await deliverNotification(
      server.app,
      signedNotification(appStore, {
        type: 'DID_CHANGE_RENEWAL_STATUS',
        subtype: 'AUTO_RENEW_DISABLED',
        transaction: period,
        autoRenew: false,
      }),
    );
    expect(notified.statusCode, notified.body).toBe(200);
    nextMoment();

    await changeEmailThroughLink(server, member.accessToken, { newEmail, password: PASSWORD });

    const opened = await opsGet(operator, `/ops/members/${memberId}`);
    expect(opened.statusCode, opened.body).toBe(200);
    const story = opened.json<MemberStory>();
    expect(story.profile).toMatchObject({
      id: memberId,
      email: newEmail,
      hasPassword: true,
      twoStepEnabled: false,
      passkeys: 0,
      locale: 'en',
      operatorRole: null,
      stripeCustomerId: expect.stringMatching(/^cus_/),
    });
    const stripePurchase = story.purchases.find((purchase) => purchase.provider === 'Stripe');
    expect(stripePurchase).toMatchObject({
      name: '1 Week',
      refundedCents: 0,
      refundable: true,
      grantId: null,
      providerPaymentId: expect.stringMatching(/^cs_/),
      paymentIntentId: expect.stringMatching(/^pi_/),
    });
    expect(story.purchases.find((purchase) => purchase.provider === 'Apple')).toMatchObject({
      providerPaymentId: period.originalTransactionId,
      refundable: false,
    });
    expect(story.appStoreSubscriptions).toEqual([
      {
        originalTransactionId: period.originalTransactionId,
        productId: 'premium.month',
        environment: 'Sandbox',
        status: null,
        autoRenew: false,
      },
    ]);
    // His premium ends with the purchase whose period ends last.
    const lastPurchase = [...story.purchases].sort(
      (a, b) => Date.parse(b.expiresAt) - Date.parse(a.expiresAt),
    )[0]!;
    expect(story.premium).toEqual({
      endsAt: lastPurchase.expiresAt,
      source: lastPurchase.provider,
      sourcePurchaseId: lastPurchase.id,
    });
    expect(story.activeSubscriptions).toHaveLength(2);

    const { items, bodies } = await wholeTimeline(operator, memberId);
    const indexOf = (predicate: (item: TimelineItem) => boolean, what: string): number => {
      const index = items.findIndex(predicate);
      expect(index, `${what} in ${JSON.stringify(items, null, 1)}`).toBeGreaterThanOrEqual(0);
      return index;
    };
    // Newest first. (The view's row takes the server's clock, which the test moved on to make the
    // operator's codes; the rest the database's: it is not ordered against them here.)
    // Operators reading his pages are in the audit trail, not in his story.
    expect(items.filter((item) => item.kind === 'operator action')).toEqual([]);
    const moved = indexOf(
      (item) => item.kind === 'email change' && item.title.includes(newEmail),
      'the email change',
    );
    const notice = indexOf(
      (item) =>
        item.kind === 'app store notification' && item.title.includes('AUTO_RENEW_DISABLED'),
      'the App Store notification',
    );
    const apple = indexOf(
      (item) => item.kind === 'purchase' && item.title.includes('the App Store'),
      'the App Store purchase',
    );
    const bought = indexOf(
      (item) => item.kind === 'purchase' && item.title.includes('Stripe'),
      'the Stripe purchase',
    );
    const failure = indexOf((item) => item.kind === 'sign-in failure', 'the failed sign-in');
    const created = indexOf((item) => item.kind === 'account', 'the account');
    expect(moved).toBeLessThan(notice);
    expect(notice).toBeLessThan(apple);
    expect(apple).toBeLessThan(bought);
    expect(bought).toBeLessThan(failure);
    expect(failure).toBeLessThan(created);
    expect(created).toBe(items.length - 1);
    expect(items.some((item) => item.kind === 'ledger')).toBe(true);
    expect(items.some((item) => item.kind === 'sign-in')).toBe(true);
    expect(items.some((item) => item.title === 'Mail sent: email-change-confirmation')).toBe(true);
    const times = items.map((item) => Date.parse(item.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    // Not one code the member was mailed, in the story or the timeline.
    const mailed = server.inbox
      .messages()
      .filter((mail) => mail.to.includes(email) || mail.to.includes(newEmail));
    expect(mailed.length).toBeGreaterThan(0);
    const codes = mailed.flatMap((mail) =>
      [...mail.text.matchAll(/[?&]code=([^&\s]+)/g)].map((match) => decodeURIComponent(match[1]!)),
    );
    expect(codes.length).toBeGreaterThan(0);
    for (const body of [opened.body, ...bodies]) {
      for (const code of codes) expect(body).not.toContain(code);
    }
  });

  it('shows what Stripe refunded and disputed, and one email change when a newer request voided the first', async () => {
    const operator = await makeOperator(server.app, 'support', 'refunds');
    const email = uniqueEmail('refunded');
    const member = await registerAndLogin(server.app, email, PASSWORD);
    const memberId = await memberIdOf(member.accessToken);
    const [refunded, disputed] = [newPaymentIntentId(), newPaymentIntentId()];
    for (const paymentIntentId of [refunded, disputed]) {
      const bought = await deliverStripeEvent(
        server.app,
        checkoutEvent({ email, planId: '1-week', paymentIntentId }),
      );
      expect(bought.statusCode, bought.body).toBe(200);
    }
    const refund = await deliverStripeEvent(
      server.app,
      chargeRefundedEvent({ paymentIntentId: refunded, amount: 999, amountRefunded: 300 }),
    );
    expect(refund.statusCode, refund.body).toBe(200);
    const dispute = await deliverStripeEvent(
      server.app,
      disputeEvent({
        paymentIntentId: disputed,
        disputeId: newDisputeId(),
        status: 'needs_response',
      }),
    );
    expect(dispute.statusCode, dispute.body).toBe(200);
    // A first request, never confirmed, voided by the second, which is confirmed.
    const abandoned = uniqueEmail('abandoned');
    const kept = uniqueEmail('kept');
    await askForEmailChange(server, member.accessToken, {
      newEmail: abandoned,
      password: PASSWORD,
    });
    await changeEmailThroughLink(server, member.accessToken, {
      newEmail: kept,
      password: PASSWORD,
    });

    const opened = await opsGet(operator, `/ops/members/${memberId}`);
    expect(opened.statusCode, opened.body).toBe(200);
    const purchases = opened.json<MemberStory>().purchases;
    expect(purchases.find((purchase) => purchase.paymentIntentId === refunded)).toMatchObject({
      refundedCents: 300,
      refundable: true,
    });
    expect(purchases.find((purchase) => purchase.paymentIntentId === disputed)).toMatchObject({
      refundedCents: 0,
    });

    const { items } = await wholeTimeline(operator, memberId);
    expect(items.filter((item) => item.kind === 'refund')).toEqual([
      expect.objectContaining({ title: 'Refunded $3.00', detail: 'of 1 Week' }),
    ]);
    expect(items.filter((item) => item.kind === 'dispute')).toEqual([
      expect.objectContaining({ title: 'Dispute (needs_response): $9.99', detail: 'fraudulent' }),
    ]);
    expect(items.filter((item) => item.kind === 'email change').map((item) => item.title)).toEqual([
      `Email changed to ${kept}`,
    ]);
    expect(items.filter((item) => item.kind === 'purchase')).toHaveLength(2);
  });

  it('pages the timeline with every item exactly once, and answers 404 for no such member', async () => {
    const operator = await makeOperator(server.app, 'support', 'pages');
    const email = uniqueEmail('pages');
    const member = await registerAndLogin(server.app, email, PASSWORD);
    const memberId = await memberIdOf(member.accessToken);
    for (let attempt = 0; attempt < 4; attempt += 1) {
      await post(server.app, '/auth/local/login/email', { email, password: 'wrong guess' });
    }
    const { items } = await wholeTimeline(operator, memberId);
    expect(items.length).toBeGreaterThanOrEqual(6);

    for (const pageSize of [1, 2, 3]) {
      const paged: TimelineItem[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await readMemberTimeline(
          { db: server.app.database.db, auditTrail: testAuditTrail() },
          {
            operator: { ...operator, sessionId: 'test', role: 'support' },
            origin: { requestId: null, clientAddress: null },
          },
          memberId,
          { cursor, pageSize },
        );
        expect(page.data.length).toBeLessThanOrEqual(pageSize);
        paged.push(...page.data);
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      expect(paged).toEqual(items);
      expect(new Set(paged.map((item) => item.id)).size).toBe(items.length);
    }

    const unknown = await opsGet(operator, `/ops/members/${crypto.randomUUID()}`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json<{ message: string }>().message).toBe('No such member');
    const noTimeline = await opsGet(operator, `/ops/members/${crypto.randomUUID()}/timeline`);
    expect(noTimeline.statusCode).toBe(404);
    const badCursor = await opsGet(operator, `/ops/members/${memberId}/timeline?cursor=nonsense`);
    expect(badCursor.statusCode).toBe(400);
  });

  it("words each timeline line in the operator's language, keeping what was recorded as it is", async () => {
    const operator = await makeOperator(server.app, 'support', 'german');
    const email = uniqueEmail('zeitleiste');
    const member = await registerAndLogin(server.app, email, PASSWORD);
    const memberId = await memberIdOf(member.accessToken);
    const titlesIn = async (language: string) => {
      const response = await server.app.inject({
        method: 'GET',
        url: `/api/ops/members/${memberId}/timeline`,
        headers: {
          authorization: `Bearer ${operator.accessToken}`,
          'accept-language': language,
        },
        remoteAddress: OPERATOR_ADDRESS,
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<TimelineResponse>().data.map((item) => item.title);
    };
    expect(await titlesIn('en')).toEqual(expect.arrayContaining(['Account created']));
    const german = await titlesIn('de');
    expect(german).toEqual(expect.arrayContaining(['Konto erstellt']));
    expect(german).not.toContain('Account created');
    // The sign-in's method is what was recorded, not a text of ours: it stays as it is.
    expect(german).toEqual(expect.arrayContaining([expect.stringMatching(/^Angemeldet \(\w+\)$/)]));
  });

  it('writes one member.view row per opened page, with the operator, his role, the request and his address', async () => {
    const operator = await makeOperator(server.app, 'admin', 'viewer');
    const email = uniqueEmail('viewed');
    const member = await registerAndLogin(server.app, email, PASSWORD);
    const memberId = await memberIdOf(member.accessToken);
    const { db } = server.app.database;
    const rowsAbout = () =>
      db
        .selectFrom('auditEvents')
        .selectAll()
        .where('targetUserId', '=', memberId)
        .orderBy('sequence')
        .execute();

    // Searching is not audited; reading the timeline is, as a page of its own.
    expect((await opsGet(operator, `/ops/members?query=${email}`)).statusCode).toBe(200);
    expect(await rowsAbout()).toEqual([]);
    expect((await opsGet(operator, `/ops/members/${memberId}/timeline`)).statusCode).toBe(200);
    expect((await rowsAbout()).map((row) => row.action)).toEqual(['member.timeline']);

    expect((await opsGet(operator, `/ops/members/${memberId}`)).statusCode).toBe(200);
    const rows = await rowsAbout();
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({
      action: 'member.view',
      actorId: operator.userId,
      actorEmail: operator.email,
      actorRole: 'admin',
      targetEmail: email,
      clientAddress: OPERATOR_ADDRESS,
      requestId: expect.stringMatching(/.+/),
    });
    const report = await testAuditTrail().verify(db);
    expect(report.problems).toEqual([]);
  });

  it('views as the member exactly what his own profile and Purchase History answer, audited member.view-as', async () => {
    const operator = await makeOperator(server.app, 'support', 'view-as');
    const email = uniqueEmail('view-as');
    const member = await registerAndLogin(server.app, email, PASSWORD);
    const memberId = await memberIdOf(member.accessToken);
    const period = monthFrom(Date.now(), { appAccountToken: memberId });
    const bound = await postTransaction(
      server.app,
      member.accessToken,
      appStore.sign(transactionPayload(period)),
    );
    expect(bound.statusCode, bound.body).toBe(200);

    const viewed = await opsGet(operator, `/ops/members/${memberId}/view`);
    expect(viewed.statusCode, viewed.body).toBe(200);
    const ownProfile = await callApi(server.app, 'GET', '/users/profile', member.accessToken);
    const ownPurchases = await callApi(
      server.app,
      'GET',
      '/users/subscriptions/personal',
      member.accessToken,
    );
    expect(viewed.json<MemberView>()).toEqual({
      profile: ownProfile.json(),
      purchases: ownPurchases.json<{ data: unknown[] }>().data,
    });
    expect(viewed.json<MemberView>().purchases).toHaveLength(1);

    const rows = await server.app.database.db
      .selectFrom('auditEvents')
      .select(['action', 'actorId'])
      .where('targetUserId', '=', memberId)
      .execute();
    expect(rows).toEqual([{ action: 'member.view-as', actorId: operator.userId }]);
    expect((await opsGet(operator, `/ops/members/${crypto.randomUUID()}/view`)).statusCode).toBe(
      404,
    );
  });
});
