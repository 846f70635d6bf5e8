// A local stand-in for the part of Stripe's HTTP API this product uses, so a newcomer can buy a
// plan offline through the official SDK (pointed here with its host/port/protocol settings):
//
// - `POST /v1/customers`, `POST /v1/checkout/sessions`, `GET /v1/checkout/sessions/:id`,
//   `POST /v1/billing_portal/sessions`, form-encoded as the SDK sends them;
// - a hosted checkout page (`/checkout/:id`) with a card form that accepts Stripe's documented
//   test cards (4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined) and then
//   redirects to the session's success URL;
// - webhook deliveries signed exactly as Stripe signs them (`Stripe-Signature: t=…,v1=…`, an
//   HMAC-SHA256 of `t.payload` with the endpoint secret), retried with backoff on failure;
// - a minimal customer portal page listing the customer's payments.
//
// State lives in memory: it is a development tool, refused in production by the API's config.
import { createHmac, randomBytes } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  request as httpRequest,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StripeSandboxOptions {
  /** Where checkout events are delivered (the API's webhook endpoint), read at each delivery. */
  webhookUrl: string | (() => string);
  webhookSecret: string;
  port?: number;
  /** First retry after this long, doubling; 5 attempts in all. */
  retryBaseMs?: number;
}

export interface StripeSandbox {
  port: number;
  /** For the SDK: `new Stripe(key, { host, port, protocol: 'http' })`. */
  host: string;
  baseUrl: string;
  close(): Promise<void>;
}

interface Session {
  id: string;
  object: 'checkout.session';
  created: number;
  mode: string;
  currency: string;
  amount_total: number;
  customer: string | null;
  customer_email: string | null;
  customer_details: { email: string | null } | null;
  metadata: Record<string, string>;
  payment_status: 'unpaid' | 'paid';
  status: 'open' | 'complete' | 'expired';
  success_url: string;
  cancel_url: string;
  url: string;
  line_item_name: string;
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

function id(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function formatAmount(cents: number, currency: string): string {
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: currency.toUpperCase(),
  }).format(cents / 100);
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

/**
 * One POST on its own connection (no keep-alive), as a webhook delivery is: a kept-alive idle
 * connection would hold the receiving server's graceful close open.
 */
function postOnce(url: string, payload: string, signature: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          'stripe-signature': signature,
        },
        timeout: 10_000,
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('webhook timed out')));
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function stripeError(
  response: ServerResponse,
  status: number,
  message: string,
  param?: string,
): void {
  sendJson(response, status, { error: { type: 'invalid_request_error', message, param } });
}

const PAGE_STYLE = `body{margin:0;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;background:#f6f9fc;color:#1a1f36}
main{max-width:440px;margin:40px auto;padding:0 16px}.card{background:#fff;border-radius:12px;box-shadow:0 2px 12px rgb(0 0 0/8%);padding:28px}
.badge{display:inline-block;background:#ffe8a3;color:#6b4e00;font-size:12px;font-weight:700;padding:4px 8px;border-radius:6px}
h1{font-size:20px;margin:16px 0 4px}.amount{font-size:32px;font-weight:700;margin:8px 0 20px}label{display:block;font-size:14px;font-weight:600;margin:14px 0 6px}
input{width:100%;box-sizing:border-box;height:44px;border:1px solid #cfd7df;border-radius:8px;padding:0 12px;font:inherit}.row{display:flex;gap:12px}.row>div{flex:1}
button{width:100%;height:48px;margin-top:22px;border:0;border-radius:8px;background:#635bff;color:#fff;font:inherit;font-weight:700;cursor:pointer}
.error{background:#fde8e8;color:#9b1c1c;padding:10px 12px;border-radius:8px;margin-top:16px}.hint,.back{font-size:13px;color:#5a6478;margin-top:16px}a{color:#635bff}
table{width:100%;border-collapse:collapse;margin-top:12px}td,th{text-align:left;padding:8px 4px;border-bottom:1px solid #e3e8ee;font-size:14px}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${PAGE_STYLE}</style></head><body><main>${body}</main></body></html>`;
}

function checkoutPage(session: Session, error?: string): string {
  const email = session.customer_details?.email ?? session.customer_email ?? '';
  return page(
    `Pay ${formatAmount(session.amount_total, session.currency)}`,
    `<div class="card"><span class="badge">TEST MODE · local Stripe sandbox</span>
<h1>${escapeHtml(session.line_item_name)}</h1><p class="amount">${formatAmount(session.amount_total, session.currency)}</p>
<form method="post" action="/checkout/${session.id}/pay">
<label for="email">Email</label><input id="email" name="email" type="email" value="${escapeHtml(email)}" readonly>
<label for="card">Card number</label><input id="card" name="card" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required>
<div class="row"><div><label for="expiry">Expiry</label><input id="expiry" name="expiry" placeholder="12 / 34" required></div>
<div><label for="cvc">CVC</label><input id="cvc" name="cvc" inputmode="numeric" placeholder="123" required></div></div>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<button type="submit">Pay ${formatAmount(session.amount_total, session.currency)}</button></form>
<p class="hint">Test cards: 4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined. Any future expiry, any CVC.</p>
<p class="back"><a href="${escapeHtml(session.cancel_url)}">← Back</a></p></div>`,
  );
}

export async function startStripeSandbox(options: StripeSandboxOptions): Promise<StripeSandbox> {
  const sessions = new Map<string, Session>();
  const customers = new Map<string, { id: string; object: 'customer'; email: string | null }>();
  const portalSessions = new Map<string, { customer: string; returnUrl: string }>();
  const retryBaseMs = options.retryBaseMs ?? 1000;
  const pendingDeliveries = new Set<NodeJS.Timeout>();
  let baseUrl = '';

  async function deliver(event: object, attempt = 1): Promise<void> {
    const payload = JSON.stringify(event);
    try {
      const url =
        typeof options.webhookUrl === 'function' ? options.webhookUrl() : options.webhookUrl;
      const status = await postOnce(
        url,
        payload,
        signStripePayload(payload, options.webhookSecret),
      );
      if (status >= 200 && status < 300) return;
      throw new Error(`webhook answered ${status}`);
    } catch {
      if (attempt >= 5) return;
      const timer = setTimeout(
        () => {
          pendingDeliveries.delete(timer);
          void deliver(event, attempt + 1);
        },
        retryBaseMs * 2 ** (attempt - 1),
      );
      pendingDeliveries.add(timer);
    }
  }

  async function handleApi(
    request: IncomingMessage,
    response: ServerResponse,
    path: string,
  ): Promise<void> {
    const form = request.method === 'POST' ? parseStripeForm(await readBody(request)) : {};
    if (request.method === 'POST' && path === '/v1/customers') {
      const customer = {
        id: id('cus'),
        object: 'customer' as const,
        email: (form.email as string | undefined) ?? null,
      };
      customers.set(customer.id, customer);
      return sendJson(response, 200, customer);
    }
    if (request.method === 'POST' && path === '/v1/checkout/sessions') {
      const item = ((form.line_items as Record<string, Record<string, unknown>> | undefined) ?? {})[
        '0'
      ];
      const priceData = item?.price_data as Record<string, unknown> | undefined;
      const unitAmount = Number(priceData?.unit_amount);
      const successUrl = form.success_url as string | undefined;
      if (!priceData || !Number.isInteger(unitAmount) || !successUrl) {
        return stripeError(
          response,
          400,
          'line_items[0][price_data] and success_url are required',
          'line_items',
        );
      }
      const customer = (form.customer as string | undefined) ?? null;
      const sessionId = id('cs_test');
      const session: Session = {
        id: sessionId,
        object: 'checkout.session',
        created: Math.floor(Date.now() / 1000),
        mode: (form.mode as string | undefined) ?? 'payment',
        currency: (priceData.currency as string | undefined) ?? 'usd',
        amount_total: unitAmount * Number(item?.quantity ?? 1),
        customer,
        customer_email:
          (form.customer_email as string | undefined) ??
          (customer ? (customers.get(customer)?.email ?? null) : null),
        customer_details: null,
        metadata: (form.metadata as Record<string, string> | undefined) ?? {},
        payment_status: 'unpaid',
        status: 'open',
        success_url: successUrl,
        cancel_url: (form.cancel_url as string | undefined) ?? successUrl,
        url: `${baseUrl}/checkout/${sessionId}`,
        line_item_name:
          (priceData.product_data as { name?: string } | undefined)?.name ?? 'Purchase',
      };
      sessions.set(session.id, session);
      return sendJson(response, 200, session);
    }
    const sessionMatch = /^\/v1\/checkout\/sessions\/([\w-]+)$/.exec(path);
    if (request.method === 'GET' && sessionMatch?.[1]) {
      const session = sessions.get(sessionMatch[1]);
      if (!session)
        return stripeError(
          response,
          404,
          `No such checkout.session: '${sessionMatch[1]}'`,
          'session',
        );
      return sendJson(response, 200, session);
    }
    if (request.method === 'POST' && path === '/v1/billing_portal/sessions') {
      const customer = form.customer as string | undefined;
      if (!customer || !customers.has(customer))
        return stripeError(response, 400, `No such customer: '${customer}'`, 'customer');
      const token = randomBytes(16).toString('hex');
      portalSessions.set(token, {
        customer,
        returnUrl: (form.return_url as string | undefined) ?? '/',
      });
      return sendJson(response, 200, {
        id: id('bps'),
        object: 'billing_portal.session',
        customer,
        url: `${baseUrl}/portal/${token}`,
      });
    }
    return stripeError(
      response,
      404,
      `Unrecognized request URL (${request.method}: ${path}). The sandbox speaks only what Kegel Coach uses.`,
    );
  }

  async function pay(
    request: IncomingMessage,
    response: ServerResponse,
    session: Session,
  ): Promise<void> {
    const form = new URLSearchParams(await readBody(request));
    const card = (form.get('card') ?? '').replace(/\D/g, '');
    const html = (body: string): void => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(body);
    };
    if (session.status !== 'open')
      return html(checkoutPage(session, 'This checkout is already complete.'));
    if (card === '4000000000000002') return html(checkoutPage(session, 'Your card was declined.'));
    if (card !== '4242424242424242') {
      return html(
        checkoutPage(
          session,
          'Use a test card: 4242 4242 4242 4242 (or 4000 0000 0000 0002 to see a decline).',
        ),
      );
    }
    const email = session.customer_email ?? form.get('email');
    if (!session.customer) {
      // Like customer_creation=always: every payer becomes a customer, so the portal can list them.
      const customer = { id: id('cus'), object: 'customer' as const, email };
      customers.set(customer.id, customer);
      session.customer = customer.id;
    }
    session.status = 'complete';
    session.payment_status = 'paid';
    session.customer_details = { email };
    void deliver({
      id: id('evt'),
      object: 'event',
      type: 'checkout.session.completed',
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      data: { object: session },
    });
    response.writeHead(303, {
      location: session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id),
    });
    response.end();
  }

  function portalPage(response: ServerResponse, token: string): void {
    const portal = portalSessions.get(token);
    response.writeHead(portal ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    if (!portal)
      return void response.end(page('Not found', '<p>This portal link has expired.</p>'));
    const rows = [...sessions.values()]
      .filter(
        (session) => session.customer === portal.customer && session.payment_status === 'paid',
      )
      .map(
        (session) =>
          `<tr><td>${new Date(session.created * 1000).toLocaleDateString('en-US')}</td><td>${escapeHtml(session.line_item_name)}</td><td>${formatAmount(session.amount_total, session.currency)}</td></tr>`,
      )
      .join('');
    response.end(
      page(
        'Billing',
        `<div class="card"><span class="badge">TEST MODE · local Stripe sandbox</span><h1>Your payments</h1>
<table><thead><tr><th>Date</th><th>Item</th><th>Amount</th></tr></thead><tbody>${rows || '<tr><td colspan="3">No payments yet.</td></tr>'}</tbody></table>
<p class="back"><a href="${escapeHtml(portal.returnUrl)}">← Return</a></p></div>`,
      ),
    );
  }

  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://sandbox').pathname;
    const handle = async (): Promise<void> => {
      if (path.startsWith('/v1/')) return handleApi(request, response, path);
      const checkout = /^\/checkout\/([\w-]+)(\/pay)?$/.exec(path);
      const session = checkout?.[1] ? sessions.get(checkout[1]) : undefined;
      if (checkout && session && request.method === 'POST' && checkout[2])
        return pay(request, response, session);
      if (checkout && session && request.method === 'GET' && !checkout[2]) {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return void response.end(checkoutPage(session));
      }
      const portal = /^\/portal\/(\w+)$/.exec(path);
      if (portal?.[1]) return portalPage(response, portal[1]);
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('Not found');
    };
    handle().catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(String(error));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://localhost:${port}`;
  return {
    port,
    host: '127.0.0.1',
    baseUrl,
    async close() {
      for (const timer of pendingDeliveries) clearTimeout(timer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections of the SDK's agent would otherwise hold the close open.
      server.closeAllConnections();
      await closed;
    },
  };
}
