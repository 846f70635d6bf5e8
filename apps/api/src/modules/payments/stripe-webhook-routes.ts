// Stripe's webhook: the signature checked over the exact bytes Stripe sent, then the event handed
// to stripe-events.ts, with what became of it counted and, where an operator must act, logged.
import { endpoints } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type Stripe from 'stripe';

import { AppError } from '../../errors';
import { serveEndpoint } from '../../http/serve-endpoint';
import type { PaymentRoutesOptions } from './routes';

/** Stripe's default tolerance: a signature older than five minutes is refused (replays). */
const SIGNATURE_TOLERANCE_SECONDS = 300;

export const stripeWebhookRoutes: FastifyPluginAsyncZod<PaymentRoutesOptions> =
  async function stripeWebhook(webhook, options) {
    const { stripeEvents, stripe, webhookSecret, countWebhook } = options;
    // The signature covers the exact bytes Stripe sent: keep them, do not parse-and-reserialise.
    webhook.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer' },
      (_request, body, done) => {
        done(null, body);
      },
    );

    serveEndpoint(
      webhook,
      endpoints.receiveStripeEvent,
      async function receiveStripeEvent(request) {
        const signature = request.headers['stripe-signature'];
        if (typeof signature !== 'string' || !Buffer.isBuffer(request.body)) {
          countWebhook('invalid-signature');
          throw new AppError(400, 'Missing Stripe signature');
        }
        let event: Stripe.Event;
        try {
          event = (await stripe()).webhooks.constructEvent(
            request.body,
            signature,
            webhookSecret,
            SIGNATURE_TOLERANCE_SECONDS,
          );
        } catch {
          countWebhook('invalid-signature');
          throw new AppError(400, 'Invalid Stripe signature');
        }
        // A failure answers a 5xx, and Stripe delivers the event again later.
        const outcome = await stripeEvents.handleEvent(event).catch((error: unknown) => {
          countWebhook('failed');
          throw error;
        });
        countWebhook(outcome.kind);
        const about = { eventId: event.id, type: event.type, outcome: outcome.kind };
        if (outcome.kind === 'parked') {
          request.log.error(
            { ...about, reason: outcome.reason },
            `stripe: paid checkout kept, not granted (${outcome.reason}); once fixed, run: npm run payments:replay -- ${event.id}`,
          );
        } else if (outcome.kind === 'incomplete') {
          request.log.error({ ...about, reason: outcome.reason }, 'stripe: event not usable');
        } else if (outcome.kind === 'unknown-payment') {
          request.log.warn(about, 'stripe: refund or dispute of a payment not granted here');
        }
        request.log.info(about, 'stripe: event handled');
        return { received: true as const };
      },
    );
  };
