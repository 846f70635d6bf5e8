import { endpoints } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { serveEndpoint } from '../../http/serve-endpoint';
import { callerOf } from '../../plugins/authenticate';
import type { AppStoreService } from './service';

/** App Store Server Notifications, and the transactions the iOS app posts. */
export const appStoreRoutes: FastifyPluginAsyncZod<{ appStoreService: AppStoreService }> =
  async function appStoreRoutes(app, { appStoreService }) {
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
  };
