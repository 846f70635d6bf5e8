import { endpoints } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type Stripe from 'stripe';

import { AppError } from '../../errors';
import { serveEndpoint } from '../../http/serve-endpoint';
import { callerOf } from '../../plugins/authenticate';
import type { WebhookOutcome } from '../../plugins/metrics';
import { callerFrom } from '../../security/client-address';
import type { PaymentsService } from './service';

export interface PaymentRoutesOptions {
  paymentsService: PaymentsService;
  stripe: Stripe;
  webhookSecret: string;
  /** Tells the metrics what became of each webhook delivery. */
  countWebhook: (outcome: WebhookOutcome) => void;
}

/** Stripe's default tolerance: a signature older than five minutes is refused (replays). */
const SIGNATURE_TOLERANCE_SECONDS = 300;

const HANDLED_EVENTS = new Set([
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
]);

/** Plans, checkout, the customer portal, the caller's purchases, and Stripe's webhook. */
export const paymentRoutes: FastifyPluginAsyncZod<PaymentRoutesOptions> =
  async function paymentRoutes(app, options) {
    const { paymentsService, stripe, webhookSecret, countWebhook } = options;

    serveEndpoint(app, endpoints.listPlans, async function listPlans() {
      return paymentsService.listPlans();
    });

    serveEndpoint(app, endpoints.startCheckout, async function startCheckout(request) {
      return {
        paymentURL: await paymentsService.startCheckout(request.body, callerFrom(request.ip)),
      };
    });

    serveEndpoint(app, endpoints.describeCheckout, async function describeCheckout(request) {
      return paymentsService.describeCheckout(request.params.session);
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
          if (!HANDLED_EVENTS.has(event.type)) {
            countWebhook('ignored-type');
            return { received: true as const };
          }

          const session = event.data.object as Stripe.Checkout.Session;
          const email =
            session.customer_details?.email ?? session.customer_email ?? session.metadata?.email;
          const planId = session.metadata?.planId;
          if (!email || !planId) {
            request.log.error(
              { eventId: event.id, sessionId: session.id },
              'stripe: checkout without email or plan',
            );
            countWebhook('incomplete');
            return { received: true as const };
          }
          // A failure answers 500, and Stripe delivers the event again later.
          const outcome = await paymentsService
            .grantCheckout({
              eventId: event.id,
              eventType: event.type,
              sessionId: session.id,
              email,
              planId,
              amountCents: session.amount_total ?? 0,
              currency: session.currency ?? 'usd',
              isPaid:
                event.type !== 'checkout.session.async_payment_failed' &&
                session.payment_status === 'paid',
              customerId:
                typeof session.customer === 'string'
                  ? session.customer
                  : (session.customer?.id ?? null),
            })
            .catch((error: unknown) => {
              countWebhook('failed');
              throw error;
            });
          countWebhook(outcome.kind);
          if (outcome.kind === 'unknown-plan') {
            request.log.error(
              { eventId: event.id, planId },
              'stripe: paid checkout for an unknown plan',
            );
          }
          request.log.info(
            { eventId: event.id, type: event.type, outcome: outcome.kind },
            'stripe: event handled',
          );
          return { received: true as const };
        },
      );
    });
  };
