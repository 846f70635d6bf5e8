// App Store purchases: the verifier of what Apple signs, set from APPLE_BUNDLE_ID and the roots
// of APPLE_ROOT_CERTIFICATES, or (development only) from a local App Store sandbox of its own,
// which makes its own certificate chain and delivers its notifications back to this server.
// Off in production without APPLE_BUNDLE_ID: `app.appStore` is null and the routes answer 404.
import { apiRoutes } from '@kegel/contract';
import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import fp from 'fastify-plugin';

import type { Config } from '../config';
import { AppError } from '../errors';
import { isFromThisMachine } from '../security/loopback';
import { type AppStoreVerifier, createAppStoreVerifier } from '../security/app-store-verifier';

declare module 'fastify' {
  interface FastifyInstance {
    appStore: AppStoreVerifier | null;
    /** The local App Store stand-in, when this server runs one (development and tests). */
    appStoreSandbox: AppStoreSandbox | null;
  }
}

/** The sandbox's app: the bundle id and Apple id its payloads carry. */
export const SANDBOX_APP = { bundleId: 'app.kegelcoach.ios', appAppleId: 1_234_567_890 };

/**
 * What the App Store sandbox needs of the product's data, handed in by app.ts: this plugin knows
 * no module, and no table.
 */
export interface AppStoreSandboxData {
  listPlans(): Promise<
    Array<{ name: string; days: number; priceCents: number; appStoreProductId: string | null }>
  >;
  findAccountId(email: string): Promise<string | undefined>;
}

export const appStorePlugin = fp<{
  config: Pick<Config, 'appStore' | 'port'>;
  sandboxData: AppStoreSandboxData;
}>(
  async function appStorePlugin(app, { config, sandboxData }) {
    let sandbox: AppStoreSandbox | undefined;
    if (config.appStore === 'sandbox') {
      const plans = await sandboxData.listPlans();
      // Loaded here only: its certificate maker brings reflect-metadata, which patches the
      // global Reflect, and production (which refuses the sandbox) must not carry either.
      const { startAppStoreSandbox } = await import('@kegel/sandbox/app-store-sandbox');
      sandbox = await startAppStoreSandbox({
        bundleId: SANDBOX_APP.bundleId,
        appAppleId: SANDBOX_APP.appAppleId,
        products: plans.map((plan) => ({
          productId: plan.appStoreProductId ?? '',
          name: plan.name,
          days: plan.days,
          priceMilliunits: plan.priceCents * 10,
        })),
        notificationUrl: () => {
          const address = app.server.address();
          const port = typeof address === 'object' && address ? address.port : config.port;
          return `http://127.0.0.1:${port}/api${apiRoutes.receiveAppStoreNotification.path}`;
        },
        findAccountId: (email) => sandboxData.findAccountId(email.trim()),
      });
      app.log.info(
        `no APPLE_BUNDLE_ID: App Store purchases come from the local App Store sandbox, ${sandbox.devUrl}`,
      );
    }
    const settings =
      config.appStore === 'sandbox' && sandbox
        ? {
            bundleId: SANDBOX_APP.bundleId,
            appAppleId: SANDBOX_APP.appAppleId,
            refuseSandbox: false,
            rootCertificates: [sandbox.rootCertificate],
          }
        : typeof config.appStore === 'object'
          ? config.appStore
          : undefined;
    if (sandbox) {
      const devUrl = sandbox.devUrl;
      // The sandbox's page is on its own loopback port: this leads there, from this machine only.
      await app.register(async function devAppStoreLink(dev) {
        dev.addHook('onRequest', async function onlyFromThisMachine(request) {
          if (!isFromThisMachine(request)) {
            throw new AppError(
              403,
              'The App Store sandbox answers only on the machine the server runs on.',
            );
          }
        });
        dev.get('/dev/app-store', async function openAppStoreSandbox(_request, reply) {
          return reply.redirect(devUrl);
        });
      });
    }
    app.decorate('appStore', settings ? createAppStoreVerifier(settings) : null);
    app.decorate('appStoreSandbox', sandbox ?? null);
    app.addHook('onClose', async () => {
      await sandbox?.close();
    });
  },
  { name: 'app-store', dependencies: ['database'] },
);
