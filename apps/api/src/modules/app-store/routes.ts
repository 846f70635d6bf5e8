import { endpoints } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { serveEndpoint } from '../../http/serve-endpoint';
import { callerOf } from '../../plugins/authenticate';
import type { OrderClaims } from './order-claims';
import type { AppStoreService } from './service';

interface AppStoreRoutesOptions {
  appStoreService: AppStoreService;
  orderClaims: OrderClaims;
}

/**
 * App Store Server Notifications, the transactions the iOS app posts, and the purchases a member
 * claims by the order id of Apple's receipt email.
 */
export const appStoreRoutes: FastifyPluginAsyncZod<AppStoreRoutesOptions> =
  async function appStoreRoutes(app, { appStoreService, orderClaims }) {
    serveEndpoint(
      app,
      endpoints.receiveAppStoreNotification,
      async function receiveAppStoreNotification(request) {
        const outcome = await appStoreService.receiveNotification(request.body.signedPayload);
        request.log.info({ outcome }, 'app store: notification handled');
        return { received: true as const };
      },
    );

    serveEndpoint(
      app,
      endpoints.recordAppStoreTransaction,
      async function recordAppStoreTransaction(request) {
        const end = await appStoreService.recordTransaction(
          callerOf(request).userId,
          request.body.signedTransaction,
        );
        return { subscriptionEndDate: end?.toISOString() ?? null };
      },
    );

    serveEndpoint(
      app,
      endpoints.claimAppStorePurchase,
      async function claimAppStorePurchase(request) {
        const userId = callerOf(request).userId;
        const claimed = await orderClaims.claimOrder(userId, request.body.orderId);
        // Who took which subscription, for support: a claim moves a purchase onto an account.
        request.log.info(
          { userId, originalTransactionIds: claimed.originalTransactionIds },
          'app store: purchase claimed by order id',
        );
        return { subscriptionEndDate: claimed.subscriptionEndDate?.toISOString() ?? null };
      },
    );
  };
