import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { replayParkedCheckouts } from '../../src/modules/payments/replay-parked-checkouts';
import { register } from '../support/accounts';
import { captureLog, LOG_LEVEL } from '../support/log-capture';
import { checkoutEvent, deliverStripeEvent } from '../support/stripe-events';
import { startTestServer, testConfig, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Who bought and what was paid: the buyer is the account the checkout named, then
 * the Stripe customer's account, and the email only for a true guest; a price that differs from
 * the plan's is granted and reported; a plan this server does not know is kept for a replay.
 */
describe.each(testDatabaseKinds)('buyers and amounts on $name', (kind) => {
  let server: TestServer;
  const log = captureLog();
  beforeAll(async () => {
    server = await startTestServer(kind, { logger: log.logger });
  });
  afterAll(() => server.close());

  function accountOf(email: string) {
    return server.app.database.db
      .selectFrom('users')
      .select(['id', 'email', 'subscriptionEndDate', 'stripeCustomerId'])
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .executeTakeFirst();
  }

  async function member(label: string) {
    const email = uniqueEmail(label);
    await register(server.app, email, 'correct horse');
    return (await accountOf(email))!;
  }

  async function linkCustomer(userId: string, customerId: string) {
    await server.app.database.db
      .updateTable('users')
      .set({ stripeCustomerId: customerId })
      .where('id', '=', userId)
      .execute();
  }

  it('grants to the account the checkout named, whatever email Stripe shows', async () => {
    const buyer = await member('named');
    const shownEmail = uniqueEmail('old-address');
    const response = await deliverStripeEvent(
      server.app,
      checkoutEvent({ email: shownEmail, clientReferenceId: buyer.id, customerId: 'cus_named1' }),
    );
    expect(response.statusCode, response.body).toBe(200);
    expect((await accountOf(buyer.email))!.subscriptionEndDate).not.toBeNull();
    expect((await accountOf(buyer.email))!.stripeCustomerId).toBe('cus_named1');
    expect(await accountOf(shownEmail)).toBeUndefined();
  });

  it("grants to the Stripe customer's account and never makes an account for its old email", async () => {
    const buyer = await member('customer');
    await linkCustomer(buyer.id, 'cus_changed_email');
    const oldEmail = uniqueEmail('customer-before');
    const responses = await Promise.all([
      deliverStripeEvent(
        server.app,
        checkoutEvent({ email: oldEmail, customerId: 'cus_changed_email' }),
      ),
      deliverStripeEvent(
        server.app,
        checkoutEvent({ email: oldEmail, customerId: 'cus_changed_email' }),
      ),
    ]);
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200]);
    const end = (await accountOf(buyer.email))!.subscriptionEndDate!.getTime();
    expect(end).toBeGreaterThan(Date.now() + 14 * DAY_MS - 60_000);
    expect(await accountOf(oldEmail)).toBeUndefined();
  });

  it('gives a guest purchase to the account its email registered between checkout and payment', async () => {
    // The checkout began as a guest's: no account named, a customer Stripe made at payment.
    const buyer = await member('registered-meanwhile');
    const response = await deliverStripeEvent(
      server.app,
      checkoutEvent({ email: buyer.email.toUpperCase(), customerId: 'cus_guest_then_member' }),
    );
    expect(response.statusCode).toBe(200);
    const account = (await accountOf(buyer.email))!;
    expect(account.id).toBe(buyer.id);
    expect(account.subscriptionEndDate).not.toBeNull();
    expect(account.stripeCustomerId).toBe('cus_guest_then_member');
    // No mail (no password was made for him): nothing was written to the outbox.
    const mail = await server.app.database.db
      .selectFrom('outboxEmails')
      .select('template')
      .where('recipient', 'in', [buyer.email, buyer.email.toUpperCase()])
      .execute();
    expect(mail).toEqual([]);
  });

  it('grants the plan when Stripe charged another amount, records both and logs an error', async () => {
    const buyer = await member('coupon');
    const response = await deliverStripeEvent(
      server.app,
      checkoutEvent({ email: buyer.email, planId: '1-month', amountTotal: 1499, currency: 'eur' }),
    );
    expect(response.statusCode).toBe(200);
    const purchase = await server.app.database.db
      .selectFrom('purchases')
      .select(['amountCents', 'currency', 'listedPriceCents', 'listedCurrency', 'days'])
      .where('userId', '=', buyer.id)
      .executeTakeFirstOrThrow();
    expect(purchase).toEqual({
      amountCents: 1499,
      currency: 'eur',
      listedPriceCents: 2999,
      listedCurrency: 'usd',
      days: 30,
    });
    const [line] = log.find(LOG_LEVEL.error, /stripe: paid 1499 eur where the plan lists 2999 usd/);
    expect(line).toMatchObject({ paid: '1499 eur', listed: '2999 usd' });
  });

  it('keeps a paid checkout for an unknown plan and grants it by replay once the plan exists', async () => {
    const buyer = await member('unknown-plan');
    // Paid seventy days before the replay: the 180 days count from the replay, not the payment.
    const event = checkoutEvent({
      email: buyer.email,
      planId: '6-months',
      amountTotal: 4999,
      created: Math.floor(Date.now() / 1000) - 70 * 24 * 60 * 60,
    });
    expect((await deliverStripeEvent(server.app, event)).statusCode).toBe(200);
    expect((await deliverStripeEvent(server.app, event)).statusCode).toBe(200);
    expect((await accountOf(buyer.email))!.subscriptionEndDate).toBeNull();
    expect(
      log.find(LOG_LEVEL.error, new RegExp(`npm run payments:replay -- ${event.id}`)),
    ).not.toEqual([]);

    const config = testConfig(server.database);
    // Before the plan exists, a replay keeps it parked.
    expect(
      await replayParkedCheckouts(config, [event.id], { database: server.app.database }),
    ).toEqual([{ eventId: event.id, outcome: 'parked' }]);
    await server.app.database.db
      .insertInto('plans')
      .values({ id: '6-months', name: '6 Months', days: 180, priceCents: 4999, currency: 'usd' })
      .execute();
    expect(
      await replayParkedCheckouts(config, [event.id, 'evt_never_seen'], {
        database: server.app.database,
      }),
    ).toEqual([
      { eventId: event.id, outcome: 'granted' },
      { eventId: 'evt_never_seen', outcome: 'not-parked' },
    ]);
    const end = (await accountOf(buyer.email))!.subscriptionEndDate!.getTime();
    expect(end).toBeGreaterThan(Date.now() + 180 * DAY_MS - 60_000);
    const parked = await server.app.database.db
      .selectFrom('stripeParkedEvents')
      .select(['payload', 'replayedAt'])
      .where('eventId', '=', event.id)
      .executeTakeFirstOrThrow();
    expect(parked.replayedAt).toBeInstanceOf(Date);
    // Twice is once.
    expect(
      await replayParkedCheckouts(config, [event.id], { database: server.app.database }),
    ).toEqual([{ eventId: event.id, outcome: 'already-granted' }]);
    expect((await accountOf(buyer.email))!.subscriptionEndDate!.getTime()).toBe(end);
    expect((await deliverStripeEvent(server.app, event)).statusCode).toBe(200);
    expect((await accountOf(buyer.email))!.subscriptionEndDate!.getTime()).toBe(end);
  });

  it('keeps a paid checkout that names no account it can find and has no email', async () => {
    const event = checkoutEvent({ email: null, clientReferenceId: crypto.randomUUID() });
    expect((await deliverStripeEvent(server.app, event)).statusCode).toBe(200);
    const parked = await server.app.database.db
      .selectFrom('stripeParkedEvents')
      .select(['reason', 'payload'])
      .where('eventId', '=', event.id)
      .executeTakeFirstOrThrow();
    expect(parked.reason).toBe('no account named and no email');
    expect(JSON.parse(parked.payload)).toMatchObject({ id: event.id, type: event.type });
  });
});
