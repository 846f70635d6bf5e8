import { endpoints } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type Stripe from 'stripe';

import { AppError } from '../../errors';
import { serveEndpoint } from '../../http/serve-endpoint';
import { callerOf } from '../../plugins/authenticate';
import type { WebhookOutcome } from '../../plugins/metrics';
import { callerFrom } from '../../security/client-address';
import type { PaymentsService } from './service';
import type { StripeEventHandler } from './stripe-events';

export interface PaymentRoutesOptions {
  paymentsService: PaymentsService;
  stripeEvents: StripeEventHandler;
  stripe: Stripe;
  webhookSecret: string;
  /** Tells the metrics what became of each webhook delivery. */
  countWebhook: (outcome: WebhookOutcome) => void;
}

/** Stripe's default tolerance: a signature older than five minutes is refused (replays). */
const SIGNATURE_TOLERANCE_SECONDS = 300;

/** Plans, checkout, the customer portal, the caller's purchases, and Stripe's webhook. */
export const paymentRoutes: FastifyPluginAsyncZod<PaymentRoutesOptions> =
  async function paymentRoutes(app, options) {
    const { paymentsService, stripeEvents, stripe, webhookSecret, countWebhook } = options;

    serveEndpoint(app, endpoints.listPlans, async function listPlans() {
      return paymentsService.listPlans();
    });

    serveEndpoint(app, endpoints.startCheckout, async function startCheckout(request) {
      // Open to everyone; a member buying for his own account has a budget of his own.
      const member = await app.findSignedInCaller(request);
      return {
        paymentURL: await paymentsService.startCheckout(
          request.body,
          callerFrom(request.ip),
          member?.userId,
        ),
      };
    });

    serveEndpoint(app, endpoints.describeCheckout, async function describeCheckout(request) {
      return paymentsService.describeCheckout(request.params.session, callerFrom(request.ip));
    });

    serveEndpoint(app, endpoints.openCustomerPortal, async function openCustomerPortal(request) {
      return { url: await paymentsService.openCustomerPortal(callerOf(request).userId) };
    });

    serveEndpoint(app, endpoints.listPurchases, async function listOwnPurchases(request) {
      return { data: await paymentsService.listPurchases(callerOf(request).userId) };
    });

    await app.register(async function stripeWebhook(webhook) {
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
            event = stripe.webhooks.constructEvent(
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
    });
  };
