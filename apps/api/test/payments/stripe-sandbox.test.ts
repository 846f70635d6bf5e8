import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { startStripeSandbox, type StripeSandbox } from '@kegel/sandbox/stripe-sandbox';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The Stripe sandbox on its own, driven by the official SDK as the API drives it: sessions with
 * their payment intents, customers, refunds, disputes from the development page, the portal,
 * and the events it delivers (checked with the SDK's own signature verification).
 */
const WEBHOOK_SECRET = 'whsec_sandbox_test_secret';
const verifier = new Stripe('sk_test_x');

interface Delivery {
  event: Stripe.Event;
  body: string;
}

describe('the Stripe sandbox', () => {
  let sandbox: StripeSandbox;
  let stripe: Stripe;
  let receiver: Server;
  const deliveries: Delivery[] = [];
  const badlySigned: string[] = [];
  const onDelivery = new Set<() => void>();
  /** How the receiver answers an event: 200 unless a test holds or fails it. */
  let answerFor: (event: Stripe.Event) => Promise<number> = async () => 200;

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of request) chunks.push(chunk as Buffer);
        const body = Buffer.concat(chunks).toString('utf8');
        let event: Stripe.Event;
        try {
          event = verifier.webhooks.constructEvent(
            body,
            String(request.headers['stripe-signature']),
            WEBHOOK_SECRET,
          );
        } catch {
          badlySigned.push(body);
          response.writeHead(400).end();
          return;
        }
        deliveries.push({ event, body });
        for (const listener of onDelivery) listener();
        response.writeHead(await answerFor(event)).end();
      })();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    sandbox = await startStripeSandbox({
      webhookUrl: `http://127.0.0.1:${port}/webhook`,
      webhookSecret: WEBHOOK_SECRET,
      retryBaseMs: 50,
    });
    stripe = new Stripe('sk_test_local_sandbox', {
      host: sandbox.host,
      port: sandbox.port,
      protocol: 'http',
    });
  });
  afterAll(async () => {
    await sandbox.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  /**
   * The deliveries matching `predicate`, once there are `count` of them: the test's timeout
   * bounds the wait, nothing here is timed.
   */
  function delivered(predicate: (event: Stripe.Event) => boolean, count = 1): Promise<Delivery[]> {
    return new Promise((resolve) => {
      const check = (): void => {
        const found = deliveries.filter((delivery) => predicate(delivery.event));
        if (found.length < count) return;
        onDelivery.delete(check);
        resolve(found);
      };
      onDelivery.add(check);
      check();
    });
  }

  function about(type: string, objectId: string) {
    return (event: Stripe.Event) =>
      event.type === type && (event.data.object as { id: string }).id === objectId;
  }

  function uniqueEmail(label: string): string {
    return `${label}-${randomUUID().slice(0, 8)}@example.com`;
  }

  function createSession(
    params: { item?: string; amount?: number } & Partial<Stripe.Checkout.SessionCreateParams> = {},
  ) {
    const { item = 'Kegel Coach Premium — 1 Week', amount = 999, ...rest } = params;
    return stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [
        {
          quantity: 1,
          price_data: { currency: 'usd', unit_amount: amount, product_data: { name: item } },
        },
      ],
      success_url: 'http://app.test/purchase/complete?session={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://app.test/purchase',
      ...rest,
    });
  }

  function pay(session: Stripe.Checkout.Session, card = '4242424242424242'): Promise<Response> {
    return fetch(`${session.url}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ card, expiry: '12/34', cvc: '123' }).toString(),
      redirect: 'manual',
    });
  }

  /** A paid session, as retrieved after the payment. */
  async function paidSession(
    params: Parameters<typeof createSession>[0] = {},
  ): Promise<Stripe.Checkout.Session & { payment_intent: string; customer: string }> {
    const session = await createSession(params);
    expect((await pay(session)).status).toBe(303);
    const paid = await stripe.checkout.sessions.retrieve(session.id);
    if (typeof paid.payment_intent !== 'string' || typeof paid.customer !== 'string')
      throw new Error('a paid session has a payment intent and a customer');
    return { ...paid, payment_intent: paid.payment_intent, customer: paid.customer };
  }

  /** What a browser sends when the button named `label` on /dev is pressed: its form, as is. */
  async function pressDevButton(label: string): Promise<Response> {
    const html = await (await fetch(sandbox.devUrl)).text();
    const form = html
      .split('<form ')
      .slice(1)
      .map((chunk) => chunk.slice(0, chunk.indexOf('</form>')))
      .find((chunk) => chunk.includes(`aria-label="${label}"`));
    if (!form) throw new Error(`no button "${label}" on /dev`);
    const action = /^method="post" action="([^"]+)"/.exec(form)?.[1] ?? '';
    const fields = new URLSearchParams();
    for (const [, name, value] of form.matchAll(
      /<input type="hidden" name="(\w+)" value="(\w*)">/g,
    ))
      fields.append(name!, value!);
    return fetch(new URL(action, sandbox.baseUrl), {
      method: 'POST',
      body: fields,
      redirect: 'manual',
    });
  }

  async function devPost(path: string, fields: Record<string, string> = {}): Promise<Response> {
    return fetch(`${sandbox.baseUrl}${path}`, {
      method: 'POST',
      body: new URLSearchParams(fields),
      redirect: 'manual',
    });
  }

  it('keeps client_reference_id, and gives a paid session a payment intent, a charge and a customer', async () => {
    const email = uniqueEmail('buyer');
    const open = await createSession({
      client_reference_id: 'user-42',
      customer_email: email,
      metadata: { planId: '1-week' },
    });
    expect(open).toMatchObject({
      client_reference_id: 'user-42',
      payment_intent: null,
      customer: null,
      status: 'open',
      payment_status: 'unpaid',
    });
    expect((await createSession()).client_reference_id).toBeNull();

    const response = await pay(open);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(
      `http://app.test/purchase/complete?session=${open.id}`,
    );
    const paid = await stripe.checkout.sessions.retrieve(open.id);
    expect(paid).toMatchObject({
      client_reference_id: 'user-42',
      payment_intent: expect.stringMatching(/^pi_/),
      customer: expect.stringMatching(/^cus_/),
      status: 'complete',
      payment_status: 'paid',
      customer_details: { email },
    });
    const paymentIntent = await stripe.paymentIntents.retrieve(paid.payment_intent as string);
    expect(paymentIntent).toEqual({
      id: paid.payment_intent,
      object: 'payment_intent',
      created: expect.any(Number),
      amount: 999,
      currency: 'usd',
      customer: paid.customer,
      status: 'succeeded',
      latest_charge: expect.stringMatching(/^ch_/),
      livemode: false,
    });
    expect(await stripe.charges.retrieve(paymentIntent.latest_charge as string)).toEqual({
      id: paymentIntent.latest_charge,
      object: 'charge',
      created: paymentIntent.created,
      amount: 999,
      amount_refunded: 0,
      refunded: false,
      currency: 'usd',
      customer: paid.customer,
      payment_intent: paid.payment_intent,
      disputed: false,
      paid: true,
      status: 'succeeded',
      livemode: false,
    });
    expect((await stripe.customers.retrieve(paid.customer as string)) as Stripe.Customer).toEqual(
      expect.objectContaining({ object: 'customer', email }),
    );

    const [completed] = await delivered(about('checkout.session.completed', open.id));
    expect(completed?.event).toEqual({
      id: expect.stringMatching(/^evt_/),
      object: 'event',
      api_version: '2026-10-28.endive',
      created: expect.any(Number),
      livemode: false,
      pending_webhooks: 1,
      type: 'checkout.session.completed',
      data: { object: JSON.parse(JSON.stringify(paid)) },
    });
  });

  it('lists sessions by payment intent and by customer, newest first, in pages', async () => {
    const customer = await stripe.customers.create({ email: uniqueEmail('lister') });
    const first = await paidSession({ customer: customer.id, item: 'First' });
    const second = await paidSession({ customer: customer.id, item: 'Second' });
    const stillOpen = await createSession({ customer: customer.id, item: 'Open' });

    const byPayment = await stripe.checkout.sessions.list({ payment_intent: first.payment_intent });
    expect(byPayment).toEqual({
      object: 'list',
      data: [expect.objectContaining({ id: first.id, payment_intent: first.payment_intent })],
      has_more: false,
      url: '/v1/checkout/sessions',
    });
    const byCustomer = await stripe.checkout.sessions.list({ customer: customer.id });
    expect(byCustomer.data.map((session) => session.id)).toEqual([
      stillOpen.id,
      second.id,
      first.id,
    ]);
    const both = await stripe.checkout.sessions.list({
      customer: customer.id,
      payment_intent: second.payment_intent,
    });
    expect(both.data.map((session) => session.id)).toEqual([second.id]);
    const onePage = await stripe.checkout.sessions.list({ customer: customer.id, limit: 2 });
    expect(onePage.data.map((session) => session.id)).toEqual([stillOpen.id, second.id]);
    expect(onePage.has_more).toBe(true);
    const none = await stripe.checkout.sessions.list({ payment_intent: 'pi_unknown' });
    expect(none).toEqual({
      object: 'list',
      data: [],
      has_more: false,
      url: '/v1/checkout/sessions',
    });
  });

  it("shows a customer's current email on the checkout page, updated through the API", async () => {
    const before = uniqueEmail('before');
    const after = uniqueEmail('after');
    const customer = await stripe.customers.create({
      email: before,
      metadata: { userId: 'u-1', plan: 'week' },
    });
    expect(customer).toMatchObject({
      id: expect.stringMatching(/^cus_/),
      object: 'customer',
      email: before,
      metadata: { userId: 'u-1', plan: 'week' },
    });
    const session = await createSession({ customer: customer.id });
    expect(await (await fetch(session.url!)).text()).toContain(`value="${before}" readonly`);

    const updated = await stripe.customers.update(customer.id, {
      email: after,
      metadata: { plan: '', source: 'test' },
    });
    expect(updated).toMatchObject({ email: after, metadata: { userId: 'u-1', source: 'test' } });
    expect(await stripe.customers.retrieve(customer.id)).toEqual(updated);

    const page = await (await fetch(session.url!)).text();
    expect(page).toContain(`value="${after}" readonly`);
    expect(page).not.toContain(before);
    expect((await pay(session)).status).toBe(303);
    const paid = await stripe.checkout.sessions.retrieve(session.id);
    expect(paid.customer).toBe(customer.id);
    expect(paid.customer_details?.email).toBe(after);
  });

  it('deletes a customer: retrieve says deleted, the rest is 404, the portal ends', async () => {
    const customer = await stripe.customers.create({ email: uniqueEmail('leaving') });
    const portal = await stripe.billingPortal.sessions.create({
      customer: customer.id,
      return_url: 'http://app.test/dashboard',
    });
    expect((await fetch(portal.url)).status).toBe(200);

    expect(await stripe.customers.del(customer.id)).toEqual({
      id: customer.id,
      object: 'customer',
      deleted: true,
    });
    // Stripe's own behaviour: a retrieve still answers, with `deleted: true`.
    expect(await stripe.customers.retrieve(customer.id)).toEqual({
      id: customer.id,
      object: 'customer',
      deleted: true,
    });
    const missing = {
      type: 'StripeInvalidRequestError',
      statusCode: 404,
      code: 'resource_missing',
      message: `No such customer: '${customer.id}'`,
    };
    await expect(
      stripe.customers.update(customer.id, { email: 'x@example.com' }),
    ).rejects.toMatchObject(missing);
    await expect(stripe.customers.del(customer.id)).rejects.toMatchObject(missing);
    await expect(stripe.customers.retrieve('cus_never')).rejects.toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
    });
    await expect(
      stripe.billingPortal.sessions.create({ customer: customer.id }),
    ).rejects.toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'customer' });
    await expect(createSession({ customer: customer.id })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'customer',
    });
    expect((await fetch(portal.url)).status).toBe(404);
  });

  it('refunds part then the rest, with signed charge.refunded and refund.created events each time', async () => {
    const paid = await paidSession();
    const partial = await stripe.refunds.create({
      payment_intent: paid.payment_intent,
      amount: 500,
      reason: 'requested_by_customer',
      metadata: { purchaseId: 'p-1' },
    });
    const { latest_charge: chargeId } = await stripe.paymentIntents.retrieve(paid.payment_intent);
    expect(partial).toEqual({
      id: expect.stringMatching(/^re_/),
      object: 'refund',
      created: expect.any(Number),
      amount: 500,
      charge: chargeId,
      payment_intent: paid.payment_intent,
      currency: 'usd',
      status: 'succeeded',
      reason: 'requested_by_customer',
      metadata: { purchaseId: 'p-1' },
    });
    expect(await stripe.charges.retrieve(chargeId as string)).toMatchObject({
      amount_refunded: 500,
      refunded: false,
    });

    const rest = await stripe.refunds.create({ charge: chargeId as string });
    expect(rest).toMatchObject({ amount: 499, charge: chargeId, reason: null, metadata: {} });
    expect(await stripe.charges.retrieve(chargeId as string)).toMatchObject({
      amount_refunded: 999,
      refunded: true,
    });

    const events = await delivered(about('charge.refunded', chargeId as string), 2);
    const [refundEvent] = await delivered(about('refund.created', partial.id));
    expect(refundEvent?.event.data.object).toEqual(partial);
    const charges = events
      .map(({ event }) => event.data.object as Stripe.Charge)
      .sort((a, b) => a.amount_refunded - b.amount_refunded);
    expect(charges.map(({ amount_refunded, refunded }) => ({ amount_refunded, refunded }))).toEqual(
      [
        { amount_refunded: 500, refunded: false },
        { amount_refunded: 999, refunded: true },
      ],
    );
    expect(events[0]?.event).toMatchObject({
      object: 'event',
      api_version: '2026-10-28.endive',
      livemode: false,
      pending_webhooks: 1,
      data: { object: { id: chargeId, object: 'charge', payment_intent: paid.payment_intent } },
    });
    expect(badlySigned).toEqual([]);

    const listed = await stripe.refunds.list({ payment_intent: paid.payment_intent });
    expect(listed).toEqual({
      object: 'list',
      data: [rest, partial],
      has_more: false,
      url: '/v1/refunds',
    });
    expect(await stripe.refunds.retrieve(partial.id)).toEqual(partial);
  });

  it("refuses refunds with Stripe's errors", async () => {
    const paid = await paidSession();
    const refuse = (params: Stripe.RefundCreateParams, expected: Record<string, unknown>) =>
      expect(stripe.refunds.create(params)).rejects.toMatchObject({
        type: 'StripeInvalidRequestError',
        ...expected,
      });

    await refuse(
      { payment_intent: 'pi_unknown' },
      { statusCode: 404, code: 'resource_missing', param: 'payment_intent' },
    );
    await refuse(
      { charge: 'ch_unknown' },
      { statusCode: 404, code: 'resource_missing', param: 'charge' },
    );
    await refuse({}, { statusCode: 400, code: 'parameter_missing' });
    for (const amount of [0, -5, 1.5]) {
      await refuse(
        { payment_intent: paid.payment_intent, amount },
        { statusCode: 400, code: 'parameter_invalid_integer', param: 'amount' },
      );
    }
    await refuse(
      { payment_intent: paid.payment_intent, amount: 1000 },
      {
        statusCode: 400,
        code: 'amount_too_large',
        param: 'amount',
        message: 'Refund amount ($10.00) is greater than unrefunded amount on charge ($9.99)',
      },
    );
    await stripe.refunds.create({ payment_intent: paid.payment_intent, amount: 900 });
    await refuse(
      { payment_intent: paid.payment_intent, amount: 100 },
      { statusCode: 400, code: 'amount_too_large' },
    );
    await stripe.refunds.create({ payment_intent: paid.payment_intent });
    await refuse(
      { payment_intent: paid.payment_intent },
      { statusCode: 400, code: 'charge_already_refunded' },
    );
    const refunds = await stripe.refunds.list({ payment_intent: paid.payment_intent });
    expect(refunds.data.map((refund) => refund.amount)).toEqual([99, 900]);
  });

  it('answers a repeated Idempotency-Key with the first refund, and refuses it for other parameters', async () => {
    const paid = await paidSession();
    const key = `refund-${randomUUID()}`;
    const first = await stripe.refunds.create(
      { payment_intent: paid.payment_intent, amount: 100 },
      { idempotencyKey: key },
    );
    const again = await stripe.refunds.create(
      { payment_intent: paid.payment_intent, amount: 100 },
      { idempotencyKey: key },
    );
    expect(again).toEqual(first);
    await expect(
      stripe.refunds.create(
        { payment_intent: paid.payment_intent, amount: 200 },
        { idempotencyKey: key },
      ),
    ).rejects.toMatchObject({ type: 'StripeIdempotencyError', statusCode: 400 });
    const refunds = await stripe.refunds.list({ payment_intent: paid.payment_intent });
    expect(refunds.data.map((refund) => refund.id)).toEqual([first.id]);
  });

  it('retries a failed delivery with the same event as it was, though the charge changed since', async () => {
    const paid = await paidSession();
    const { latest_charge: chargeId } = await stripe.paymentIntents.retrieve(paid.payment_intent);
    let release: (status: number) => void = () => undefined;
    const held = new Promise<number>((resolve) => (release = resolve));
    let heldOne = false;
    answerFor = async (event) => {
      if (!heldOne && about('charge.refunded', chargeId as string)(event)) {
        heldOne = true;
        return held;
      }
      return 200;
    };
    try {
      await stripe.refunds.create({ payment_intent: paid.payment_intent, amount: 300 });
      const [first] = await delivered(about('charge.refunded', chargeId as string));
      await stripe.refunds.create({ payment_intent: paid.payment_intent });
      await delivered(about('charge.refunded', chargeId as string), 2);
      release(500);

      const attempts = await delivered((event) => event.id === first?.event.id, 2);
      expect(attempts.map(({ body }) => body)).toEqual([first?.body, first?.body]);
      expect(attempts[1]?.event.data.object).toMatchObject({
        amount_refunded: 300,
        refunded: false,
      });
    } finally {
      answerFor = async () => 200;
    }
  });

  it('opens disputes from /dev and closes them as won or lost, with their events', async () => {
    const winnerEmail = uniqueEmail('disputed-won');
    const loserEmail = uniqueEmail('disputed-lost');
    const won = await paidSession({ customer_email: winnerEmail, item: '1 Week' });
    const lost = await paidSession({ customer_email: loserEmail, item: '1 Month', amount: 2499 });
    const { latest_charge: wonCharge } = await stripe.paymentIntents.retrieve(won.payment_intent);

    const opened = await pressDevButton(`Open dispute on 1 Week payment of ${winnerEmail}`);
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe('/dev');
    const [created] = await delivered(
      (event) => event.type === 'charge.dispute.created' && event.data.object.charge === wonCharge,
    );
    const dispute = created?.event.data.object as Stripe.Dispute;
    expect(dispute).toEqual({
      id: expect.stringMatching(/^dp_/),
      object: 'dispute',
      created: expect.any(Number),
      amount: 999,
      currency: 'usd',
      charge: wonCharge,
      payment_intent: won.payment_intent,
      reason: 'fraudulent',
      status: 'needs_response',
      is_charge_refundable: false,
      livemode: false,
    });
    expect(await stripe.charges.retrieve(wonCharge as string)).toMatchObject({ disputed: true });
    expect(await stripe.disputes.retrieve(dispute.id)).toEqual(dispute);

    // One dispute per payment, and none refunded while it is charged back.
    expect((await devPost(`/dev/payments/${won.payment_intent}/dispute`)).status).toBe(409);
    expect((await devPost(`/dev/payments/${won.payment_intent}/refund`)).status).toBe(409);
    await expect(
      stripe.refunds.create({ payment_intent: won.payment_intent }),
    ).rejects.toMatchObject({ statusCode: 400, code: 'charge_disputed' });

    const page = await (await fetch(sandbox.devUrl)).text();
    expect(page).toContain('<title>Stripe sandbox — payments</title>');
    expect(page).toContain('TEST MODE');
    expect(page).not.toContain(`aria-label="Open dispute on 1 Week payment of ${winnerEmail}"`);
    expect(page).toContain(
      `aria-label="Close as won: dispute on 1 Week payment of ${winnerEmail}"`,
    );
    // Newest first.
    expect(page.indexOf(loserEmail)).toBeGreaterThan(-1);
    expect(page.indexOf(loserEmail)).toBeLessThan(page.indexOf(winnerEmail));

    expect(
      (await pressDevButton(`Close as won: dispute on 1 Week payment of ${winnerEmail}`)).status,
    ).toBe(303);
    const [closedWon] = await delivered(about('charge.dispute.closed', dispute.id));
    expect(closedWon?.event.data.object).toEqual({ ...dispute, status: 'won' });
    const again = await devPost(`/dev/disputes/${dispute.id}/close`, { outcome: 'lost' });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('This dispute is already closed (won).');
    expect((await devPost(`/dev/payments/${won.payment_intent}/dispute`)).status).toBe(409);

    expect((await pressDevButton(`Open dispute on 1 Month payment of ${loserEmail}`)).status).toBe(
      303,
    );
    const [createdLost] = await delivered(
      (event) =>
        event.type === 'charge.dispute.created' &&
        event.data.object.payment_intent === lost.payment_intent,
    );
    const lostDispute = createdLost?.event.data.object as Stripe.Dispute;
    expect(lostDispute.amount).toBe(2499);
    expect(
      (await pressDevButton(`Close as lost: dispute on 1 Month payment of ${loserEmail}`)).status,
    ).toBe(303);
    const [closedLost] = await delivered(about('charge.dispute.closed', lostDispute.id));
    expect(closedLost?.event.data.object).toMatchObject({ id: lostDispute.id, status: 'lost' });
    expect(await stripe.disputes.retrieve(lostDispute.id)).toMatchObject({ status: 'lost' });

    const after = await (await fetch(sandbox.devUrl)).text();
    const row = (email: string) => after.split('<tr>').find((cells) => cells.includes(email));
    expect(row(winnerEmail)).toContain('<td>Won</td>');
    expect(row(loserEmail)).toContain('<td>Lost</td>');
    expect(badlySigned).toEqual([]);
  });

  it('refunds half then the rest from /dev, through the same code as the API', async () => {
    const email = uniqueEmail('dev-refund');
    const paid = await paidSession({ customer_email: email, item: '1 Week' });
    const { latest_charge: chargeId } = await stripe.paymentIntents.retrieve(paid.payment_intent);

    const half = await pressDevButton(`Refund half ($4.99) of 1 Week payment of ${email}`);
    expect(half.status).toBe(303);
    expect(half.headers.get('location')).toBe('/dev');
    expect(await stripe.charges.retrieve(chargeId as string)).toMatchObject({
      amount_refunded: 499,
      refunded: false,
    });
    const page = await (await fetch(sandbox.devUrl)).text();
    expect(page).toContain(`aria-label="Refund $5.00 of 1 Week payment of ${email}"`);

    expect((await pressDevButton(`Refund $5.00 of 1 Week payment of ${email}`)).status).toBe(303);
    expect(await stripe.charges.retrieve(chargeId as string)).toMatchObject({
      amount_refunded: 999,
      refunded: true,
    });
    const refunds = await stripe.refunds.list({ payment_intent: paid.payment_intent });
    expect(refunds.data.map((refund) => refund.amount)).toEqual([500, 499]);
    const events = await delivered(about('charge.refunded', chargeId as string), 2);
    expect(
      events.map(({ event }) => (event.data.object as Stripe.Charge).amount_refunded).sort(),
    ).toEqual([499, 999]);

    const done = await (await fetch(sandbox.devUrl)).text();
    expect(done).not.toContain(`of 1 Week payment of ${email}"`);
    expect(done).not.toContain(`on 1 Week payment of ${email}"`);
    const again = await devPost(`/dev/payments/${paid.payment_intent}/refund`);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain(`has already been refunded.`);
  });

  it('refuses unknown payments and disputes on /dev with 404', async () => {
    for (const path of [
      '/dev/payments/pi_unknown/refund',
      '/dev/payments/pi_unknown/dispute',
      '/dev/disputes/dp_unknown/close',
    ]) {
      const response = await devPost(path, { outcome: 'won' });
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
  });

  it('shows refunds on the customer portal', async () => {
    const customer = await stripe.customers.create({ email: uniqueEmail('portal') });
    const full = await paidSession({ customer: customer.id, item: 'Refunded plan' });
    const partly = await paidSession({ customer: customer.id, item: 'Partly refunded plan' });
    await paidSession({ customer: customer.id, item: 'Kept plan' });
    await stripe.refunds.create({ payment_intent: full.payment_intent });
    await stripe.refunds.create({ payment_intent: partly.payment_intent, amount: 500 });

    const portal = await stripe.billingPortal.sessions.create({ customer: customer.id });
    const page = await (await fetch(portal.url)).text();
    const rows = [
      ...page.matchAll(
        /<tr><td>[^<]*<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><\/tr>/g,
      ),
    ].map(([, item, amount, status]) => [item, amount, status]);
    expect(rows).toEqual([
      ['Kept plan', '$9.99', 'Paid'],
      ['Partly refunded plan', '$9.99', 'Partly refunded ($5.00)'],
      ['Refunded plan', '$9.99', 'Refunded'],
    ]);
  });

  it("refuses any key but its own with Stripe's 401, when given one", async () => {
    const strict = await startStripeSandbox({
      webhookUrl: 'http://127.0.0.1:1/unused',
      webhookSecret: WEBHOOK_SECRET,
      secretKey: 'sk_test_the_right_key',
    });
    try {
      const sdk = (key: string) =>
        new Stripe(key, { host: strict.host, port: strict.port, protocol: 'http' });
      await expect(
        sdk('sk_test_a_revoked_key').customers.create({ email: uniqueEmail('refused') }),
      ).rejects.toMatchObject({
        type: 'StripeAuthenticationError',
        statusCode: 401,
        message: 'Invalid API Key provided: sk_test_*********_key',
      });
      const customer = await sdk('sk_test_the_right_key').customers.create({
        email: uniqueEmail('taken'),
      });
      expect(customer.id).toMatch(/^cus_/);
    } finally {
      await strict.close();
    }
  });
});
