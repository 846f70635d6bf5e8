// A local stand-in for the part of Stripe's HTTP API this product uses, so a newcomer can buy a
// plan offline through the official SDK (pointed here with its host/port/protocol settings):
//
// - customers (`POST /v1/customers`, `GET`/`POST`/`DELETE /v1/customers/:id`), Checkout Sessions
//   (`POST /v1/checkout/sessions`, `GET /v1/checkout/sessions/:id`, and `GET /v1/checkout/sessions`
//   listed by `payment_intent`, `customer`, `status` or `customer_details[email]`), refunds
//   (`POST /v1/refunds`, `GET /v1/refunds/:id`, `GET /v1/refunds` by `payment_intent` or
//   `charge`), `GET` of payment intents, charges and disputes, and
//   `POST /v1/billing_portal/sessions`: form-encoded or in the query string as the SDK sends
//   them, answered in Stripe's shapes and error shapes, a POST's `Idempotency-Key` replayed, and
//   (with `secretKey`) any other API key refused with 401 as Stripe refuses it;
// - a hosted checkout page (`/checkout/:id`) with a card form that accepts Stripe's documented
//   test cards (4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined, 4000 0000 0000 5126
//   succeeds but a refund of it fails a moment later, with `charge.refund.updated`) and then
//   redirects to the session's success URL; a payment makes a PaymentIntent and a Charge;
// - webhook deliveries signed exactly as Stripe signs them (`Stripe-Signature: t=…,v1=…`, an
//   HMAC-SHA256 of `t.payload` with the endpoint secret), retried with backoff on failure:
//   `checkout.session.completed`, `charge.refunded` with `refund.created`, `charge.refund.updated`,
//   `charge.dispute.created` and `charge.dispute.closed`;
// - a minimal customer portal page listing the customer's payments and their refunds;
// - a development page (`/dev`) listing the payments, where a refund (all that is left, or half)
//   goes through the same code as `POST /v1/refunds`, and a dispute can be opened and then closed
//   as won or lost, each delivering the event Stripe would.
//
// Every endpoint is a row of the route tables at the top of startStripeSandbox. State lives in
// memory: it is a development tool, refused in production by the API's config.
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';

import {
  escapeHtml,
  listenOnLoopback,
  page as framePage,
  postButton,
  postOnce,
  readBody,
  sendHtml,
} from './loopback-http';
import {
  anyMethod,
  del,
  type Exchange,
  get,
  type PageHandler,
  paramReader,
  post,
  routeTable,
  sendText,
  serveRoutes,
} from './route-table';

export interface StripeSandboxOptions {
  /** Where events are delivered (the API's webhook endpoint), read at each delivery. */
  webhookUrl: string | (() => string);
  webhookSecret: string;
  port?: number;
  /** First retry after this long, doubling; 5 attempts in all. */
  retryBaseMs?: number;
  /**
   * The one secret key the API takes: any other is refused with 401, as Stripe refuses a wrong or
   * revoked key. Without it, every key is taken.
   */
  secretKey?: string;
}

export interface StripeSandbox {
  port: number;
  /** For the SDK: `new Stripe(key, { host, port, protocol: 'http' })`. */
  host: string;
  baseUrl: string;
  /** The development page: payments, refunds and disputes. */
  devUrl: string;
  close(): Promise<void>;
}

/** The version the product's SDK pins (stripe v23): the one its events are rendered in. */
const API_VERSION = '2026-10-28.endive';
const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'];

interface Customer {
  id: string;
  object: 'customer';
  created: number;
  email: string | null;
  name: string | null;
  metadata: Record<string, string>;
  livemode: false;
}

interface Session {
  id: string;
  object: 'checkout.session';
  created: number;
  mode: string;
  currency: string;
  amount_total: number;
  client_reference_id: string | null;
  customer: string | null;
  customer_email: string | null;
  customer_details: { email: string | null } | null;
  metadata: Record<string, string>;
  /** Null while open, as with Stripe since 2022-08-01: the intent is made at payment. */
  payment_intent: string | null;
  payment_status: 'unpaid' | 'paid';
  status: 'open' | 'complete' | 'expired';
  success_url: string;
  cancel_url: string;
  url: string;
  line_item_name: string;
  /** The language of Stripe's page, as asked (`locale`); null: Stripe's own choice. */
  locale: string | null;
}

interface PaymentIntent {
  id: string;
  object: 'payment_intent';
  created: number;
  amount: number;
  currency: string;
  customer: string | null;
  status: 'succeeded';
  latest_charge: string;
  livemode: false;
}

interface Charge {
  id: string;
  object: 'charge';
  created: number;
  amount: number;
  amount_refunded: number;
  refunded: boolean;
  currency: string;
  customer: string | null;
  payment_intent: string;
  disputed: boolean;
  paid: true;
  status: 'succeeded';
  livemode: false;
}

interface Refund {
  id: string;
  object: 'refund';
  created: number;
  amount: number;
  charge: string;
  payment_intent: string;
  currency: string;
  status: 'succeeded' | 'failed';
  failure_reason?: string;
  reason: string | null;
  metadata: Record<string, string>;
}

interface Dispute {
  id: string;
  object: 'dispute';
  created: number;
  amount: number;
  currency: string;
  charge: string;
  payment_intent: string;
  reason: 'fraudulent';
  status: 'needs_response' | 'won' | 'lost';
  is_charge_refundable: false;
  livemode: false;
}

interface StripeList<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  url: string;
}

/**
 * A request the sandbox refuses: the API answers it in Stripe's error shape, the development
 * page as a short page with the same message.
 */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

/** Stripe's answer for an id it does not know: 404 in a path, 400 in a parameter. */
function noSuch(kind: string, unknownId: string, param = 'id', status = 404): Refusal {
  return new Refusal(status, `No such ${kind}: '${unknownId}'`, 'resource_missing', param);
}

/** Stripe's form encoding (`a[b][0][c]=1`) back into objects. */
export function parseStripeForm(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const keys = rawKey.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> = root;
    keys.forEach((key, index) => {
      if (index === keys.length - 1) {
        node[key] = value;
        return;
      }
      node[key] ??= {};
      node = node[key] as Record<string, unknown>;
    });
  }
  return root;
}

/**
 * Stripe's `locale` of a Checkout or portal session: a language tag (`de`, `pt-BR`) or `auto`;
 * anything else is refused as Stripe refuses it.
 */
function localeParam(params: Record<string, unknown>): string | null {
  const locale = stringParam(params, 'locale');
  if (locale === undefined) return null;
  if (locale !== 'auto' && !/^[a-z]{2}(-[A-Z0-9]{2,3})?$/.test(locale)) {
    throw new Refusal(400, `Invalid locale: ${locale}`, 'parameter_invalid_string', 'locale');
  }
  return locale;
}

function stringParam(params: Record<string, unknown>, name: string): string | undefined {
  const value = params[name];
  return typeof value === 'string' ? value : undefined;
}

/** An amount or a limit: Stripe refuses anything but a whole number of at least 1. */
function positiveInteger(value: string | undefined, param: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value))
    throw new Refusal(400, `Invalid integer: ${value}`, 'parameter_invalid_integer', param);
  if (Number(value) < 1) {
    throw new Refusal(
      400,
      'This value must be greater than or equal to 1.',
      'parameter_invalid_integer',
      param,
    );
  }
  return Number(value);
}

/**
 * Stripe's metadata update: each key given is set, a key given as '' is removed, and
 * `metadata=''` removes them all.
 */
function mergeMetadata(current: Record<string, string>, param: unknown): Record<string, string> {
  if (param === '') return {};
  if (typeof param !== 'object' || param === null) return current;
  const merged = { ...current };
  for (const [key, value] of Object.entries(param as Record<string, unknown>)) {
    if (value === '') delete merged[key];
    else if (typeof value === 'string') merged[key] = value;
  }
  return merged;
}

/** A page of a list, newest first as Stripe lists: `limit` (1 to 100, 10 by default) of them. */
function stripeList<T>(newestFirst: T[], url: string, params: Record<string, unknown>) {
  const limit = positiveInteger(stringParam(params, 'limit'), 'limit') ?? 10;
  if (limit > 100) {
    throw new Refusal(
      400,
      'This value must be less than or equal to 100.',
      'parameter_invalid_integer',
      'limit',
    );
  }
  const list: StripeList<T> = {
    object: 'list',
    data: newestFirst.slice(0, limit),
    has_more: newestFirst.length > limit,
    url,
  };
  return list;
}

function id(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/** Stripe's test card whose payment succeeds and whose refunds fail a moment after succeeding. */
const REFUND_FAILS_CARD = '4000000000005126';

function nowInSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * Stripe's zero- and three-decimal currencies (stripe.com/docs/currencies): its amounts are in
 * minor units, so 1200 JPY is ¥1,200 and 1500 BHD is 1.500 dinars. The sandbox stands in for
 * Stripe and keeps its own list, as Stripe does; the product's is @kegel/contract's money.ts.
 */
const ZERO_DECIMAL_CURRENCIES = new Set(
  'bif clp djf gnf jpy kmf krw mga pyg rwf ugx vnd vuv xaf xof xpf'.split(' '),
);
const THREE_DECIMAL_CURRENCIES = new Set('bhd jod kwd omr tnd'.split(' '));

function formatAmount(minorUnits: number, currency: string): string {
  const code = currency.toLowerCase();
  const digits = ZERO_DECIMAL_CURRENCIES.has(code) ? 0 : THREE_DECIMAL_CURRENCIES.has(code) ? 3 : 2;
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: currency.toUpperCase(),
  }).format(minorUnits / 10 ** digits);
}

/** The header Stripe puts on a webhook delivery. */
export function signStripePayload(
  payload: string,
  secret: string,
  timestamp = Math.floor(Date.now() / 1000),
): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** How Stripe names a key it refuses: its prefix and last four characters, the rest masked. */
function maskedKey(key: string): string {
  const prefix = /^[a-z]+_(?:test_|live_)?/.exec(key)?.[0] ?? '';
  const shown = key.slice(-4);
  return `${prefix}${'*'.repeat(Math.max(0, key.length - prefix.length - shown.length))}${shown}`;
}

/** Stripe's 401 for a request without the account's key: the SDK makes it an authentication error. */
function refuseKey(response: ServerResponse, authorization: string | undefined): void {
  const key = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  sendJson(response, 401, {
    error: {
      type: 'invalid_request_error',
      message: key
        ? `Invalid API Key provided: ${maskedKey(key)}`
        : "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
    },
  });
}

/** One request to the API, as its route handlers read it. */
interface ApiCall {
  method: string;
  path: string;
  /** The form (a POST's body) or query string parameters, as objects. */
  params: Record<string, unknown>;
  /** A `:name` of the route's path. */
  param: (name: string) => string;
}

type ApiHandler = (call: ApiCall) => unknown;

function unrecognizedRequest({ method, path }: ApiCall): Refusal {
  return new Refusal(
    404,
    `Unrecognized request URL (${method}: ${path}). The sandbox speaks only what Kegel Coach uses.`,
  );
}

function notFound(response: ServerResponse): void {
  sendText(response, 404, 'Not found');
}

function internalError(response: ServerResponse, error: unknown): void {
  sendText(response, 500, String(error));
}

function stripeError(response: ServerResponse, refusal: Refusal): void {
  sendJson(response, refusal.status, {
    error: {
      type: 'invalid_request_error',
      code: refusal.code,
      message: refusal.message,
      param: refusal.param,
    },
  });
}

const PAGE_STYLE = `body{margin:0;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;background:#f6f9fc;color:#1a1f36}
main{max-width:440px;margin:40px auto;padding:0 16px}main.wide{max-width:1180px}.card{background:#fff;border-radius:12px;box-shadow:0 2px 12px rgb(0 0 0/8%);padding:28px}
.badge{display:inline-block;background:#ffe8a3;color:#6b4e00;font-size:12px;font-weight:700;padding:4px 8px;border-radius:6px}
h1{font-size:20px;margin:16px 0 4px}.amount{font-size:32px;font-weight:700;margin:8px 0 20px}label{display:block;font-size:14px;font-weight:600;margin:14px 0 6px}
input{width:100%;box-sizing:border-box;height:44px;border:1px solid #cfd7df;border-radius:8px;padding:0 12px;font:inherit}.row{display:flex;gap:12px}.row>div{flex:1}
button{width:100%;height:48px;margin-top:22px;border:0;border-radius:8px;background:#635bff;color:#fff;font:inherit;font-weight:700;cursor:pointer}
.error{background:#fde8e8;color:#9b1c1c;padding:10px 12px;border-radius:8px;margin-top:16px}.hint,.back{font-size:13px;color:#5a6478;margin-top:16px}a{color:#635bff}
table{width:100%;border-collapse:collapse;margin-top:12px}td,th{text-align:left;padding:8px 4px;border-bottom:1px solid #e3e8ee;font-size:14px}
.actions form{display:inline-block;margin:0 6px 6px 0}.actions button{width:auto;height:32px;margin:0 4px 0 0;padding:0 12px;font-size:13px}
.scroll{overflow-x:auto}.actions button{height:auto;min-height:32px;padding:6px 12px;white-space:nowrap}
@media (max-width:600px){.row{flex-direction:column;gap:0}}`;

function page(title: string, body: string, layout: 'narrow' | 'wide' = 'narrow'): string {
  return framePage(PAGE_STYLE, title, body, layout);
}

const BADGE = '<span class="badge">TEST MODE · local Stripe sandbox</span>';

/** The checkout page; `email` is the payer's as known now (a customer's current address). */
function checkoutPage(session: Session, email: string | null, error?: string): string {
  return page(
    `Pay ${formatAmount(session.amount_total, session.currency)}`,
    `<div class="card">${BADGE}
<h1>${escapeHtml(session.line_item_name)}</h1><p class="amount">${formatAmount(session.amount_total, session.currency)}</p>
<form method="post" action="/checkout/${escapeHtml(session.id)}/pay">
<label for="email">Email</label><input id="email" name="email" type="email" value="${escapeHtml(email ?? '')}" ${email ? 'readonly' : 'required'}>
<label for="card">Card number</label><input id="card" name="card" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required>
<div class="row"><div><label for="expiry">Expiry</label><input id="expiry" name="expiry" placeholder="12 / 34" required></div>
<div><label for="cvc">CVC</label><input id="cvc" name="cvc" inputmode="numeric" placeholder="123" required></div></div>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<button type="submit">Pay ${formatAmount(session.amount_total, session.currency)}</button></form>
<p class="hint">Test cards: 4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined. Any future expiry, any CVC.</p>
<p class="back"><a href="${escapeHtml(session.cancel_url)}">← Back</a></p></div>`,
  );
}

/** What a payment row of the portal says of its refunds. */
function refundStatus(charge: Charge): string {
  if (charge.refunded) return 'Refunded';
  if (charge.amount_refunded > 0)
    return `Partly refunded (${formatAmount(charge.amount_refunded, charge.currency)})`;
  return 'Paid';
}

const DISPUTE_STATUS_LABELS: Record<Dispute['status'], string> = {
  needs_response: 'Open (needs response)',
  won: 'Won',
  lost: 'Lost',
};

export async function startStripeSandbox(options: StripeSandboxOptions): Promise<StripeSandbox> {
  // Maps keep insertion order, which is creation order: reversed, they list newest first.
  const sessions = new Map<string, Session>();
  const customers = new Map<string, Customer>();
  // Stripe still answers a retrieve of a deleted customer, with `deleted: true`.
  const deletedCustomers = new Set<string>();
  const paymentIntents = new Map<string, PaymentIntent>();
  const charges = new Map<string, Charge>();
  const refunds = new Map<string, Refund>();
  const disputes = new Map<string, Dispute>();
  const portalSessions = new Map<string, { customer: string; returnUrl: string }>();
  // A POST repeated with the same Idempotency-Key (the SDK's own retries, or the product's keys)
  // gets the first answer again instead of doing it twice, as with Stripe.
  const idempotentAnswers = new Map<string, { request: string; body: unknown }>();
  const retryBaseMs = options.retryBaseMs ?? 1000;
  const pendingDeliveries = new Set<NodeJS.Timeout>();
  // Charges paid with 4000 0000 0000 5126, whose refunds fail after they succeeded (as Stripe's).
  const refundsFailLater = new Set<string>();
  let baseUrl = '';

  // ---- Every endpoint of the sandbox, in one place; each handler is a named function below ----

  /** The API: each handler answers in Stripe's shape or throws a Refusal. */
  const findApiRoute = routeTable<ApiHandler>([
    post('/v1/customers', ({ params }) => createCustomer(params)),
    get('/v1/customers/:customerId', retrieveCustomer),
    post('/v1/customers/:customerId', updateCustomer),
    del('/v1/customers/:customerId', deleteCustomer),
    anyMethod('/v1/customers/:customerId', refuseCustomerMethod),
    post('/v1/checkout/sessions', ({ params }) => createSession(params)),
    get('/v1/checkout/sessions', listSessions),
    get('/v1/checkout/sessions/:id', retrieveFrom(sessions, 'checkout.session')),
    post('/v1/refunds', ({ params }) => createRefund(params)),
    get('/v1/refunds', listRefunds),
    get('/v1/refunds/:id', retrieveFrom(refunds, 'refund')),
    get('/v1/payment_intents/:id', retrieveFrom(paymentIntents, 'payment_intent')),
    get('/v1/charges/:id', retrieveFrom(charges, 'charge')),
    get('/v1/disputes/:id', retrieveFrom(disputes, 'dispute')),
    post('/v1/billing_portal/sessions', createPortalSession),
  ]);

  /** The server: the API above, the pages a person sees, and the development page's forms. */
  const findPageRoute = routeTable<PageHandler>([
    anyMethod('/v1/*', handleApi),
    get('/checkout/:sessionId', showCheckout),
    post('/checkout/:sessionId/pay', pay),
    anyMethod('/portal/:token(\\w+)', showPortal),
    get('/dev', showDevPage),
    post('/dev/payments/:paymentIntentId/refund', refundFromDevPage),
    post('/dev/payments/:paymentIntentId/dispute', openDisputeFromDevPage),
    post('/dev/disputes/:disputeId/close', closeDisputeFromDevPage),
    // Anything else under /dev is the development page's own 404.
    anyMethod('/dev', noSuchDevPage),
    anyMethod('/dev/*', noSuchDevPage),
  ]);

  /** Each attempt is signed anew (a fresh timestamp), the payload stays the same, as Stripe's. */
  async function deliver(payload: string, attempt = 1): Promise<void> {
    try {
      const url =
        typeof options.webhookUrl === 'function' ? options.webhookUrl() : options.webhookUrl;
      const status = await postOnce(url, payload, {
        'stripe-signature': signStripePayload(payload, options.webhookSecret),
      });
      if (status >= 200 && status < 300) return;
      throw new Error(`webhook answered ${status}`);
    } catch {
      if (attempt >= 5) return;
      const timer = setTimeout(
        () => {
          pendingDeliveries.delete(timer);
          void deliver(payload, attempt + 1);
        },
        retryBaseMs * 2 ** (attempt - 1),
      );
      pendingDeliveries.add(timer);
    }
  }

  /**
   * An event about `object` as it is now: rendered once, so a retry carries this state even when
   * the object changed since (a second refund), as Stripe's events do.
   */
  function emit(type: string, object: object): void {
    const event = {
      id: id('evt'),
      object: 'event',
      api_version: API_VERSION,
      created: nowInSeconds(),
      livemode: false,
      pending_webhooks: 1,
      type,
      data: { object },
    };
    void deliver(JSON.stringify(event));
  }

  /** The email the payer pays with: a customer's current one, read now, so an update shows. */
  function payerEmail(session: Session): string | null {
    const customer = session.customer ? customers.get(session.customer) : undefined;
    return customer?.email ?? session.customer_details?.email ?? session.customer_email ?? null;
  }

  function chargeOf(paymentIntent: PaymentIntent): Charge {
    const charge = charges.get(paymentIntent.latest_charge);
    if (!charge) throw new Error(`payment ${paymentIntent.id} has no charge`);
    return charge;
  }

  function sessionOf(paymentIntentId: string): Session | undefined {
    return [...sessions.values()].find((session) => session.payment_intent === paymentIntentId);
  }

  function disputeOf(chargeId: string): Dispute | undefined {
    return [...disputes.values()].find((dispute) => dispute.charge === chargeId);
  }

  function newestFirst<T>(records: Map<string, T>, keep: (record: T) => boolean): T[] {
    return [...records.values()].reverse().filter(keep);
  }

  function createCustomer(params: Record<string, unknown>): Customer {
    const customer: Customer = {
      id: id('cus'),
      object: 'customer',
      created: nowInSeconds(),
      email: stringParam(params, 'email') || null,
      name: stringParam(params, 'name') || null,
      metadata: mergeMetadata({}, params.metadata),
      livemode: false,
    };
    customers.set(customer.id, customer);
    return customer;
  }

  function createSession(params: Record<string, unknown>): Session {
    const item = ((params.line_items as Record<string, Record<string, unknown>> | undefined) ?? {})[
      '0'
    ];
    const priceData = item?.price_data as Record<string, unknown> | undefined;
    const unitAmount = Number(priceData?.unit_amount);
    const successUrl = stringParam(params, 'success_url');
    if (!priceData || !Number.isInteger(unitAmount) || !successUrl) {
      throw new Refusal(
        400,
        'line_items[0][price_data] and success_url are required',
        'parameter_missing',
        'line_items',
      );
    }
    const currency = (stringParam(priceData, 'currency') ?? 'usd').toLowerCase();
    // Checked here, or the checkout page could not format the amount.
    if (!/^[a-z]{3}$/.test(currency))
      throw new Refusal(400, `Invalid currency: ${currency}`, undefined, 'currency');
    const customer = stringParam(params, 'customer') ?? null;
    if (customer && !customers.has(customer)) throw noSuch('customer', customer, 'customer', 400);
    const sessionId = id('cs_test');
    const session: Session = {
      id: sessionId,
      object: 'checkout.session',
      created: nowInSeconds(),
      mode: stringParam(params, 'mode') ?? 'payment',
      currency,
      amount_total: unitAmount * Number(item?.quantity ?? 1),
      client_reference_id: stringParam(params, 'client_reference_id') ?? null,
      customer,
      customer_email:
        stringParam(params, 'customer_email') ??
        (customer ? (customers.get(customer)?.email ?? null) : null),
      customer_details: null,
      metadata: mergeMetadata({}, params.metadata),
      payment_intent: null,
      payment_status: 'unpaid',
      status: 'open',
      success_url: successUrl,
      cancel_url: stringParam(params, 'cancel_url') ?? successUrl,
      url: `${baseUrl}/checkout/${sessionId}`,
      line_item_name: (priceData.product_data as { name?: string } | undefined)?.name ?? 'Purchase',
      locale: localeParam(params),
    };
    sessions.set(session.id, session);
    return session;
  }

  /** The charge a refund is for, by `charge` or by `payment_intent` (its latest charge). */
  function chargeToRefund(params: Record<string, unknown>): Charge {
    const chargeId = stringParam(params, 'charge');
    const paymentIntentId = stringParam(params, 'payment_intent');
    if (chargeId) {
      const charge = charges.get(chargeId);
      if (!charge) throw noSuch('charge', chargeId, 'charge');
      if (paymentIntentId && charge.payment_intent !== paymentIntentId) {
        throw new Refusal(
          400,
          `Charge ${chargeId} does not belong to PaymentIntent ${paymentIntentId}.`,
          undefined,
          'payment_intent',
        );
      }
      return charge;
    }
    if (!paymentIntentId) {
      throw new Refusal(
        400,
        'One of the following params should be provided for this request: payment_intent or charge.',
        'parameter_missing',
      );
    }
    const paymentIntent = paymentIntents.get(paymentIntentId);
    if (!paymentIntent) throw noSuch('payment_intent', paymentIntentId, 'payment_intent');
    return chargeOf(paymentIntent);
  }

  /** `POST /v1/refunds`, and the development page's refund buttons. */
  function createRefund(params: Record<string, unknown>): Refund {
    const requested = positiveInteger(stringParam(params, 'amount'), 'amount');
    const reason = stringParam(params, 'reason') ?? null;
    if (reason !== null && !REFUND_REASONS.includes(reason)) {
      throw new Refusal(
        400,
        `Invalid reason: must be one of ${REFUND_REASONS.join(', ')}`,
        undefined,
        'reason',
      );
    }
    const charge = chargeToRefund(params);
    // A charged-back payment is settled by its dispute (is_charge_refundable is false).
    if (charge.disputed) {
      throw new Refusal(
        400,
        `Charge ${charge.id} has been charged back; cannot issue a refund.`,
        'charge_disputed',
      );
    }
    const left = charge.amount - charge.amount_refunded;
    if (left <= 0) {
      throw new Refusal(
        400,
        `Charge ${charge.id} has already been refunded.`,
        'charge_already_refunded',
      );
    }
    const amount = requested ?? left;
    if (amount > left) {
      throw new Refusal(
        400,
        `Refund amount (${formatAmount(amount, charge.currency)}) is greater than unrefunded amount on charge (${formatAmount(left, charge.currency)})`,
        'amount_too_large',
        'amount',
      );
    }
    const refund: Refund = {
      id: id('re'),
      object: 'refund',
      created: nowInSeconds(),
      amount,
      charge: charge.id,
      payment_intent: charge.payment_intent,
      currency: charge.currency,
      status: 'succeeded',
      reason,
      metadata: mergeMetadata({}, params.metadata),
    };
    refunds.set(refund.id, refund);
    charge.amount_refunded += amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    // Stripe sends both: the charge as it now stands, and the refund itself.
    emit('charge.refunded', charge);
    emit('refund.created', refund);
    if (refundsFailLater.has(charge.id)) failRefundLater(refund, charge);
    return refund;
  }

  /**
   * The card holder's bank sends the refund back (Stripe's test card 4000 0000 0000 5126): the
   * refund becomes failed and the charge no longer counts it. A second later, so the event's
   * `created` (in seconds) comes after the refund's own events, as it does days later at Stripe.
   */
  function failRefundLater(refund: Refund, charge: Charge): void {
    const timer = setTimeout(() => {
      pendingDeliveries.delete(timer);
      refund.status = 'failed';
      refund.failure_reason = 'expired_or_canceled_card';
      charge.amount_refunded -= refund.amount;
      charge.refunded = false;
      emit('charge.refund.updated', refund);
    }, 1100);
    pendingDeliveries.add(timer);
  }

  /** The development page's "Open dispute": the cardholder says the payment was fraud. */
  function openDispute(paymentIntentId: string): Dispute {
    const paymentIntent = paymentIntents.get(paymentIntentId);
    if (!paymentIntent) throw noSuch('payment_intent', paymentIntentId);
    const charge = chargeOf(paymentIntent);
    // A charge has one dispute in Stripe: a closed one is not opened again.
    const existing = disputeOf(charge.id);
    if (existing) {
      throw new Refusal(
        409,
        `This payment already has a dispute (${DISPUTE_STATUS_LABELS[existing.status]}).`,
      );
    }
    if (charge.refunded)
      throw new Refusal(409, 'This payment is fully refunded: there is nothing to dispute.');
    const dispute: Dispute = {
      id: id('dp'),
      object: 'dispute',
      created: nowInSeconds(),
      amount: charge.amount - charge.amount_refunded,
      currency: charge.currency,
      charge: charge.id,
      payment_intent: paymentIntent.id,
      reason: 'fraudulent',
      status: 'needs_response',
      is_charge_refundable: false,
      livemode: false,
    };
    disputes.set(dispute.id, dispute);
    charge.disputed = true;
    emit('charge.dispute.created', dispute);
    return dispute;
  }

  function closeDispute(disputeId: string, outcome: string | null): Dispute {
    const dispute = disputes.get(disputeId);
    if (!dispute) throw noSuch('dispute', disputeId);
    if (outcome !== 'won' && outcome !== 'lost')
      throw new Refusal(400, "A dispute closes as 'won' or 'lost'.", undefined, 'outcome');
    if (dispute.status !== 'needs_response')
      throw new Refusal(409, `This dispute is already closed (${dispute.status}).`);
    dispute.status = outcome;
    emit('charge.dispute.closed', dispute);
    return dispute;
  }

  function retrieveCustomer({ param }: ApiCall): unknown {
    const customerId = param('customerId');
    if (!customers.has(customerId) && deletedCustomers.has(customerId))
      return { id: customerId, object: 'customer', deleted: true };
    return customerOf(customerId);
  }

  function updateCustomer({ param, params }: ApiCall): Customer {
    const customer = customerOf(param('customerId'));
    const email = stringParam(params, 'email');
    const name = stringParam(params, 'name');
    // Stripe's update: a parameter given as '' unsets the field.
    if (email !== undefined) customer.email = email || null;
    if (name !== undefined) customer.name = name || null;
    customer.metadata = mergeMetadata(customer.metadata, params.metadata);
    return customer;
  }

  function deleteCustomer({ param }: ApiCall): unknown {
    const customerId = customerOf(param('customerId')).id;
    customers.delete(customerId);
    deletedCustomers.add(customerId);
    return { id: customerId, object: 'customer', deleted: true };
  }

  /** Another method on a customer: Stripe names a missing customer before the method it refuses. */
  function refuseCustomerMethod(call: ApiCall): never {
    customerOf(call.param('customerId'));
    throw unrecognizedRequest(call);
  }

  function customerOf(customerId: string): Customer {
    const customer = customers.get(customerId);
    if (!customer) throw noSuch('customer', customerId);
    return customer;
  }

  function listSessions({ path, params }: ApiCall): StripeList<Session> {
    const paymentIntent = stringParam(params, 'payment_intent');
    const customer = stringParam(params, 'customer');
    const status = stringParam(params, 'status');
    const email = (params.customer_details as Record<string, unknown> | undefined)?.email;
    return stripeList(
      newestFirst(
        sessions,
        (session) =>
          (paymentIntent === undefined || session.payment_intent === paymentIntent) &&
          (customer === undefined || session.customer === customer) &&
          (status === undefined || session.status === status) &&
          (email === undefined || session.customer_details?.email === email),
      ),
      path,
      params,
    );
  }

  function listRefunds({ path, params }: ApiCall): StripeList<Refund> {
    const paymentIntent = stringParam(params, 'payment_intent');
    const charge = stringParam(params, 'charge');
    return stripeList(
      newestFirst(
        refunds,
        (refund) =>
          (paymentIntent === undefined || refund.payment_intent === paymentIntent) &&
          (charge === undefined || refund.charge === charge),
      ),
      path,
      params,
    );
  }

  /** `GET /v1/<records>/:id` of one kind of record, answered as Stripe names a missing one. */
  function retrieveFrom<T>(records: Map<string, T>, kind: string): ApiHandler {
    return ({ param }) => {
      const record = records.get(param('id'));
      if (!record) throw noSuch(kind, param('id'));
      return record;
    };
  }

  function createPortalSession({ params }: ApiCall): unknown {
    const customer = stringParam(params, 'customer');
    if (!customer || !customers.has(customer))
      throw noSuch('customer', customer ?? '', 'customer', 400);
    const token = randomBytes(16).toString('hex');
    portalSessions.set(token, {
      customer,
      returnUrl: stringParam(params, 'return_url') ?? '/',
    });
    return {
      id: id('bps'),
      object: 'billing_portal.session',
      customer,
      locale: localeParam(params),
      url: `${baseUrl}/portal/${token}`,
    };
  }

  /**
   * Every `/v1/` request: the key checked, the parameters read, an `Idempotency-Key` replayed,
   * then the API's own table answers (or Stripe's 404 for a path it does not know).
   */
  async function handleApi({ request, response, url }: Exchange): Promise<void> {
    const method = request.method ?? 'GET';
    if (
      options.secretKey !== undefined &&
      request.headers.authorization !== `Bearer ${options.secretKey}`
    ) {
      return refuseKey(response, request.headers.authorization);
    }
    // The SDK sends a POST's parameters in its body, a GET's and a DELETE's in the query string.
    const body = method === 'POST' ? await readBody(request) : '';
    const params = parseStripeForm(method === 'POST' ? body : url.search.slice(1));
    const key = request.headers['idempotency-key'];
    const idempotencyKey = method === 'POST' && typeof key === 'string' ? key : undefined;
    const requestText = `${url.pathname}?${body}`;
    const earlier = idempotencyKey ? idempotentAnswers.get(idempotencyKey) : undefined;
    if (earlier && earlier.request !== requestText) {
      return sendJson(response, 400, {
        error: {
          type: 'idempotency_error',
          message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
        },
      });
    }
    if (earlier) {
      response.setHeader('idempotent-replayed', 'true');
      return sendJson(response, 200, earlier.body);
    }
    try {
      const found = findApiRoute(method, url.pathname);
      const call: ApiCall = {
        method,
        path: url.pathname,
        params,
        param: paramReader(found?.params ?? {}),
      };
      if (!found) throw unrecognizedRequest(call);
      const answer = found.handle(call);
      // A copy: the record changes later (a refund's charge), the replayed answer must not.
      const answered = JSON.parse(JSON.stringify(answer)) as unknown;
      if (idempotencyKey)
        idempotentAnswers.set(idempotencyKey, { request: requestText, body: answered });
      sendJson(response, 200, answered);
    } catch (error) {
      if (error instanceof Refusal) return stripeError(response, error);
      throw error;
    }
  }

  function showCheckout({ response, param }: Exchange): void {
    const session = sessions.get(param('sessionId'));
    if (!session) return notFound(response);
    sendHtml(response, 200, checkoutPage(session, payerEmail(session)));
  }

  async function pay({ request, response, param }: Exchange): Promise<void> {
    const session = sessions.get(param('sessionId'));
    if (!session) return notFound(response);
    const form = new URLSearchParams(await readBody(request));
    const card = (form.get('card') ?? '').replace(/\D/g, '');
    const again = (error: string): void =>
      sendHtml(response, 200, checkoutPage(session, payerEmail(session), error));
    if (session.status !== 'open') return again('This checkout is already complete.');
    if (card === '4000000000000002') return again('Your card was declined.');
    if (card !== '4242424242424242' && card !== REFUND_FAILS_CARD)
      return again(
        'Use a test card: 4242 4242 4242 4242 (or 4000 0000 0000 0002 to see a decline).',
      );
    const email = payerEmail(session) ?? (form.get('email') || null);
    if (!session.customer) {
      // Like customer_creation=always: every payer becomes a customer, so the portal can list them.
      session.customer = createCustomer(email ? { email } : {}).id;
    }
    const created = nowInSeconds();
    const paymentIntentId = id('pi');
    const charge: Charge = {
      id: id('ch'),
      object: 'charge',
      created,
      amount: session.amount_total,
      amount_refunded: 0,
      refunded: false,
      currency: session.currency,
      customer: session.customer,
      payment_intent: paymentIntentId,
      disputed: false,
      paid: true,
      status: 'succeeded',
      livemode: false,
    };
    charges.set(charge.id, charge);
    if (card === REFUND_FAILS_CARD) refundsFailLater.add(charge.id);
    paymentIntents.set(paymentIntentId, {
      id: paymentIntentId,
      object: 'payment_intent',
      created,
      amount: charge.amount,
      currency: charge.currency,
      customer: session.customer,
      status: 'succeeded',
      latest_charge: charge.id,
      livemode: false,
    });
    session.status = 'complete';
    session.payment_status = 'paid';
    session.payment_intent = paymentIntentId;
    session.customer_details = { email };
    emit('checkout.session.completed', session);
    response.writeHead(303, {
      location: session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id),
    });
    response.end();
  }

  function showPortal({ response, param }: Exchange): void {
    const portal = portalSessions.get(param('token'));
    // A deleted customer's portal links end with it.
    if (!portal || !customers.has(portal.customer))
      return sendHtml(response, 404, page('Not found', '<p>This portal link has expired.</p>'));
    const rows = newestFirst(
      sessions,
      (session) => session.customer === portal.customer && session.payment_status === 'paid',
    )
      .map((session) => {
        const paymentIntent = session.payment_intent
          ? paymentIntents.get(session.payment_intent)
          : undefined;
        const status = paymentIntent ? refundStatus(chargeOf(paymentIntent)) : 'Paid';
        return `<tr><td>${new Date(session.created * 1000).toLocaleDateString('en-US')}</td><td>${escapeHtml(session.line_item_name)}</td><td>${formatAmount(session.amount_total, session.currency)}</td><td>${escapeHtml(status)}</td></tr>`;
      })
      .join('');
    sendHtml(
      response,
      200,
      page(
        'Billing',
        `<div class="card">${BADGE}<h1>Your payments</h1>
<div class="scroll"><table><thead><tr><th>Date</th><th>Item</th><th>Amount</th><th>Status</th></tr></thead><tbody>${rows || '<tr><td colspan="4">No payments yet.</td></tr>'}</tbody></table></div>
<p class="back"><a href="${escapeHtml(portal.returnUrl)}">← Return</a></p></div>`,
      ),
    );
  }

  /** One row of the development page: the payment, and what can be done to it now. */
  function devRow(paymentIntent: PaymentIntent): string {
    const charge = chargeOf(paymentIntent);
    const session = sessionOf(paymentIntent.id);
    const email = session?.customer_details?.email ?? 'no email';
    const item = session?.line_item_name ?? 'Payment';
    const payment = `${item} payment of ${email}`;
    const dispute = disputeOf(charge.id);
    const left = charge.amount - charge.amount_refunded;
    const half = Math.floor(left / 2);
    const refundAction = `/dev/payments/${paymentIntent.id}/refund`;
    const actions: string[] = [];
    if (!charge.disputed && left > 0) {
      const all = formatAmount(left, charge.currency);
      actions.push(postButton(refundAction, `Refund ${all}`, `Refund ${all} of ${payment}`));
      if (half >= 1) {
        const halfAmount = formatAmount(half, charge.currency);
        actions.push(
          postButton(
            refundAction,
            `Refund half (${halfAmount})`,
            `Refund half (${halfAmount}) of ${payment}`,
            { amount: String(half) },
          ),
        );
      }
    }
    if (!dispute && left > 0) {
      actions.push(
        postButton(
          `/dev/payments/${paymentIntent.id}/dispute`,
          'Open dispute',
          `Open dispute on ${payment}`,
        ),
      );
    }
    if (dispute?.status === 'needs_response') {
      for (const outcome of ['won', 'lost']) {
        actions.push(
          postButton(
            `/dev/disputes/${dispute.id}/close`,
            `Close as ${outcome}`,
            `Close as ${outcome}: dispute on ${payment}`,
            { outcome },
          ),
        );
      }
    }
    const cells = [
      new Date(paymentIntent.created * 1000).toLocaleString('en-US'),
      email,
      item,
      formatAmount(charge.amount, charge.currency),
      charge.amount_refunded > 0 ? formatAmount(charge.amount_refunded, charge.currency) : '—',
      dispute ? DISPUTE_STATUS_LABELS[dispute.status] : '—',
    ].map((cell) => `<td>${escapeHtml(cell)}</td>`);
    return `<tr>${cells.join('')}<td class="actions">${actions.join('') || '—'}</td></tr>`;
  }

  function devPage(): string {
    const rows = newestFirst(paymentIntents, () => true)
      .map(devRow)
      .join('');
    return page(
      'Stripe sandbox — payments',
      `<div class="card">${BADGE}<h1>Stripe sandbox — payments</h1>
<p class="hint">Payments made on this sandbox's checkout pages, newest first. A refund here goes through the same code as <code>POST /v1/refunds</code>; refunds and disputes deliver the signed events Stripe would (<code>charge.refunded</code>, <code>refund.created</code>, <code>charge.dispute.created</code>, <code>charge.dispute.closed</code>).</p>
<p class="hint">Event times follow the server's <a href="${escapeHtml(serverPage('/dev/clock'))}">development clock</a>.</p>
<div class="scroll"><table><thead><tr><th>Date</th><th>Customer</th><th>Item</th><th>Amount</th><th>Refunded</th><th>Dispute</th><th>Actions</th></tr></thead><tbody>${rows || '<tr><td colspan="7">No payments yet.</td></tr>'}</tbody></table></div></div>`,
      'wide',
    );
  }

  /** A page of the server this sandbox delivers to (its /dev/clock). */
  function serverPage(path: string): string {
    const url =
      typeof options.webhookUrl === 'function' ? options.webhookUrl() : options.webhookUrl;
    return `${new URL(url).origin}${path}`;
  }

  function showDevPage({ response }: Exchange): void {
    sendHtml(response, 200, devPage());
  }

  function noSuchDevPage({ response }: Exchange): void {
    sendHtml(response, 404, page('Not found', '<p>No such page.</p>'));
  }

  function refundFromDevPage(exchange: Exchange): Promise<void> {
    return runDevAction(exchange, (form) => {
      const amount = form.get('amount');
      createRefund({
        payment_intent: exchange.param('paymentIntentId'),
        ...(amount ? { amount } : {}),
      });
    });
  }

  function openDisputeFromDevPage(exchange: Exchange): Promise<void> {
    return runDevAction(exchange, () => openDispute(exchange.param('paymentIntentId')));
  }

  function closeDisputeFromDevPage(exchange: Exchange): Promise<void> {
    return runDevAction(exchange, (form) =>
      closeDispute(exchange.param('disputeId'), form.get('outcome')),
    );
  }

  /** A form of the development page: done, it answers 303 back to the page. */
  async function runDevAction(
    { request, response }: Exchange,
    action: (form: URLSearchParams) => void,
  ): Promise<void> {
    const form = new URLSearchParams(await readBody(request));
    try {
      action(form);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      // The state of the payment is what forbids these here, whatever Stripe's API answers.
      const conflict = ['charge_already_refunded', 'charge_disputed'].includes(error.code ?? '');
      return sendHtml(
        response,
        conflict ? 409 : error.status,
        page(
          error.status === 404 ? 'Not found' : 'Not done',
          `<div class="card">${BADGE}<p class="error" role="alert">${escapeHtml(error.message)}</p>
<p class="back"><a href="/dev">← Payments</a></p></div>`,
        ),
      );
    }
    response.writeHead(303, { location: '/dev' });
    response.end();
  }

  const server = createServer(
    serveRoutes(findPageRoute, ({ response }) => notFound(response), internalError),
  );

  const port = await listenOnLoopback(server, options.port);
  baseUrl = `http://localhost:${port}`;
  return {
    port,
    host: '127.0.0.1',
    baseUrl,
    devUrl: `${baseUrl}/dev`,
    async close() {
      for (const timer of pendingDeliveries) clearTimeout(timer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections of the SDK's agent would otherwise hold the close open.
      server.closeAllConnections();
      await closed;
    },
  };
}
