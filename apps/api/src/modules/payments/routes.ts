import { endpoints } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import {
  answerInCallersLanguage,
  requestLocale,
  storedOrRequestLocale,
} from '../../http/request-locale';
import type { StripeClient } from '../../plugins/payments';
import { serveEndpoint } from '../../http/serve-endpoint';
import { callerOf } from '../../plugins/authenticate';
import type { WebhookOutcome } from '../../plugins/metrics';
import { callerFrom } from '../../security/client-address';
import type { PaymentsService } from './service';
import type { StripeEventHandler } from './stripe-events';
import { stripeWebhookRoutes } from './stripe-webhook-routes';

export interface PaymentRoutesOptions {
  paymentsService: PaymentsService;
  stripeEvents: StripeEventHandler;
  stripe: StripeClient;
  webhookSecret: string;
  /** Tells the metrics what became of each webhook delivery. */
  countWebhook: (outcome: WebhookOutcome) => void;
}

/** Plans, checkout, the customer portal, the caller's purchases, and Stripe's webhook. */
export const paymentRoutes: FastifyPluginAsyncZod<PaymentRoutesOptions> =
  async function paymentRoutes(app, options) {
    const { paymentsService } = options;

    serveEndpoint(app, endpoints.listPlans, async function listPlans() {
      return paymentsService.listPlans();
    });

    serveEndpoint(app, endpoints.startCheckout, async function startCheckout(request) {
      // Open to everyone; a member buying for his own account has a budget of his own.
      const member = await app.findSignedInCaller(request);
      return {
        paymentURL: await paymentsService.startCheckout(
          request.body,
          callerFrom(request.ip, undefined, requestLocale(request)),
          member?.userId,
        ),
      };
    });

    serveEndpoint(app, endpoints.describeCheckout, async function describeCheckout(request) {
      return paymentsService.describeCheckout(request.params.session, callerFrom(request.ip));
    });

    serveEndpoint(app, endpoints.openCustomerPortal, async function openCustomerPortal(request) {
      const { userId, account } = callerOf(request);
      // Stripe's portal in his language: his stored one, else his page's.
      const locale = storedOrRequestLocale(account.locale, request);
      return { url: await paymentsService.openCustomerPortal(userId, locale) };
    });

    serveEndpoint(app, endpoints.listPurchases, async function listOwnPurchases(request, reply) {
      // The names are worded in the page's language (the database keeps them in English).
      const locale = answerInCallersLanguage(request, reply);
      return { data: await paymentsService.listPurchases(callerOf(request).userId, locale) };
    });

    await app.register(stripeWebhookRoutes, options);
  };
