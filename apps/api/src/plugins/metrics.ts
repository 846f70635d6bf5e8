// Prometheus metrics (prom-client) at /metrics: outside /api because it is plain text for a
// scraper, not a call of the contract. Each process reports its own requests, webhooks, hashing
// and refusals; the outbox figures are the shared table's, the same from every process (take the
// max across processes, not the sum).
//
// Who may read it: a client on this machine that reaches the process directly (the socket's
// address, never X-Forwarded-For, which anyone can write), or anyone presenting METRICS_TOKEN as a
// bearer token. A request that carries any forwarding header came through a proxy and is never
// "local", even when the proxy runs on this machine: otherwise a load balancer or a reverse proxy
// beside the process would open /metrics to the world (security/loopback.ts names the headers).
import { createHash, timingSafeEqual } from 'node:crypto';

import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

import type { Config } from '../config';
import { isFromThisMachine } from '../security/loopback';
import { sendError } from './error-handler';

export const METRICS_PATH = '/metrics';

export interface OutboxBacklog {
  /** Mails neither sent nor given up. */
  count: number;
  /** Seconds since the oldest of them was written; 0 when there is none. */
  oldestAgeSeconds: number;
}

export interface HashingLoad {
  running: number;
  /** Hashes waiting for a slot: the queue that answers 503 once full. */
  waiting: number;
  /** Password sign-ins waiting for their turn, before any work (a line that also answers 503). */
  signInsWaiting: number;
}

/** What became of a Stripe webhook delivery. */
export type WebhookOutcome =
  | 'granted'
  | 'duplicate-event'
  | 'already-granted'
  | 'not-paid-yet'
  | 'parked'
  | 'refund-recorded'
  | 'dispute-recorded'
  | 'unknown-payment'
  | 'ignored-type'
  | 'incomplete'
  | 'invalid-signature'
  | 'failed';

export interface Metrics {
  countWebhook: (outcome: WebhookOutcome) => void;
  /** One support desk action of that kind ('grant.add', 'refund.create' …), once committed. */
  countOperatorAction: (action: string) => void;
  /** Where a scrape reads the outbox's backlog; the mail plugin, which owns it, tells. */
  readOutboxWith: (read: () => Promise<OutboxBacklog>) => void;
  /** Where a scrape reads the password hasher's load; the API's routes, which make it, tell. */
  readHashingWith: (read: () => HashingLoad) => void;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export const metricsPlugin = fp<{ config: Pick<Config, 'metricsToken'> }>(
  async function metricsPlugin(app, { config }) {
    // A registry per server, not prom-client's global one: tests build many servers in one
    // process, and each must count only its own.
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const { requestDuration, rateLimitRefusals, webhookEvents, operatorActions } =
      createRequestMetrics(registry);
    const readings = createLoadReadings(app.log);
    registerLoadGauges(registry, readings);

    app.decorate('metrics', {
      countWebhook: (outcome) => webhookEvents.inc({ outcome }),
      countOperatorAction: (action) => operatorActions.inc({ action }),
      readOutboxWith: readings.readOutboxWith,
      readHashingWith: readings.readHashingWith,
    } satisfies Metrics);

    app.addHook('onResponse', async function measureRequest(request, reply) {
      // The route's pattern keeps the number of series bounded; unmatched paths share one label.
      const route = request.routeOptions.url ?? 'unmatched';
      requestDuration.observe(
        { method: request.method, route, status_code: String(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
      if (reply.statusCode === 429) rateLimitRefusals.inc({ route });
    });

    addMetricsRoute(app, registry, readings, config.metricsToken);
  },
  { name: 'metrics' },
);

/** What each request, webhook delivery and operator action counts. */
function createRequestMetrics(registry: Registry) {
  const requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route (its pattern, not the path asked for).',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const rateLimitRefusals = new Counter({
    name: 'kegel_rate_limit_refusals_total',
    help: 'Requests refused by a rate limit (answered 429), by route.',
    labelNames: ['route'],
    registers: [registry],
  });
  const webhookEvents = new Counter({
    name: 'kegel_stripe_webhook_events_total',
    help: 'Stripe webhook deliveries received, by outcome (granted once, duplicates, refusals).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const operatorActions = new Counter({
    name: 'kegel_operator_actions_total',
    help: 'Changes made on the support desk, by action (grant.add, refund.create …).',
    labelNames: ['action'],
    registers: [registry],
  });
  return { requestDuration, rateLimitRefusals, webhookEvents, operatorActions };
}

type LoadReadings = ReturnType<typeof createLoadReadings>;

/** Where a scrape reads the outbox's backlog and the hasher's load, once their owners tell. */
function createLoadReadings(log: FastifyBaseLogger) {
  let readOutbox: (() => Promise<OutboxBacklog>) | undefined;
  let readHashing: (() => HashingLoad) | undefined;
  /** One backlog query per scrape, shared by the two outbox gauges. */
  let backlogOfThisScrape: Promise<OutboxBacklog | undefined> | undefined;
  return {
    readOutboxWith: (read: () => Promise<OutboxBacklog>) => {
      readOutbox = read;
    },
    readHashingWith: (read: () => HashingLoad) => {
      readHashing = read;
    },
    hashing: () => readHashing?.(),
    backlog: () => {
      backlogOfThisScrape ??= (readOutbox?.() ?? Promise.resolve(undefined)).catch(
        (error: unknown) => {
          log.warn({ err: error }, 'metrics: cannot read the outbox backlog');
          return undefined;
        },
      );
      return backlogOfThisScrape;
    },
    /** A scrape's start and end: the next one reads the backlog afresh. */
    forgetBacklog: () => {
      backlogOfThisScrape = undefined;
    },
  };
}

function registerLoadGauges(registry: Registry, readings: LoadReadings): void {
  new Gauge({
    name: 'kegel_outbox_backlog',
    help: 'Mails in the outbox neither sent nor given up (the whole outbox, shared by every process). NaN when the database does not answer.',
    registers: [registry],
    async collect() {
      this.set((await readings.backlog())?.count ?? Number.NaN);
    },
  });
  new Gauge({
    name: 'kegel_outbox_oldest_age_seconds',
    help: 'Age of the oldest mail in the outbox backlog, 0 when it is empty. NaN when the database does not answer.',
    registers: [registry],
    async collect() {
      this.set((await readings.backlog())?.oldestAgeSeconds ?? Number.NaN);
    },
  });
  new Gauge({
    name: 'kegel_password_hashes_waiting',
    help: 'Password hashes queued for a slot in this process (beyond the queue, 503).',
    registers: [registry],
    collect() {
      this.set(readings.hashing()?.waiting ?? 0);
    },
  });
  new Gauge({
    name: 'kegel_password_sign_ins_waiting',
    help: 'Password sign-ins waiting for their turn in this process, before any work (beyond the line, 503).',
    registers: [registry],
    collect() {
      this.set(readings.hashing()?.signInsWaiting ?? 0);
    },
  });
  new Gauge({
    name: 'kegel_password_hashes_running',
    help: 'Password hashes being computed in this process.',
    registers: [registry],
    collect() {
      this.set(readings.hashing()?.running ?? 0);
    },
  });
}

/** GET /metrics, for this machine or the bearer of METRICS_TOKEN (see the top of this file). */
function addMetricsRoute(
  app: FastifyInstance,
  registry: Registry,
  readings: LoadReadings,
  metricsToken: string | undefined,
): void {
  const expectedToken = metricsToken ? digest(metricsToken) : undefined;
  function presentsToken(request: FastifyRequest): boolean {
    const match = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '');
    // Compared as digests: equal lengths for timingSafeEqual, and no early exit on a prefix.
    return !!expectedToken && !!match?.[1] && timingSafeEqual(digest(match[1]), expectedToken);
  }
  app.get(METRICS_PATH, { schema: { hide: true } }, async function serveMetrics(request, reply) {
    if (!presentsToken(request) && !isFromThisMachine(request)) {
      if (expectedToken) {
        void reply.header('www-authenticate', 'Bearer realm="metrics"');
        return sendError(reply, 401, 'Metrics need the METRICS_TOKEN bearer token');
      }
      return sendError(
        reply,
        403,
        'Metrics are served only to this machine; set METRICS_TOKEN to scrape from elsewhere',
      );
    }
    readings.forgetBacklog();
    const text = await registry.metrics();
    readings.forgetBacklog();
    return reply.header('cache-control', 'no-store').type(registry.contentType).send(text);
  });
}
