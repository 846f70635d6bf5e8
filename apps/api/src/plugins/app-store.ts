// App Store purchases: the verifier of what Apple signs, set from APPLE_BUNDLE_ID and the roots
// of APPLE_ROOT_CERTIFICATES, or (development only) from a local App Store sandbox of its own,
// which makes its own certificate chain and delivers its notifications back to this server.
// Off in production without APPLE_BUNDLE_ID: `app.appStore` is null and the routes answer 404.
//
// Also the App Store Server API client (`app.appStoreServerApi`), which the server calls Apple
// with: signed with the key of APPLE_ISSUER_ID, APPLE_KEY_ID and APPLE_PRIVATE_KEY_PATH, or with
// the key the local App Store sandbox makes, against that sandbox. Null without a key.
import type {
  ConsumptionRequest,
  JWSTransactionDecodedPayload,
} from '@apple/app-store-server-library';
import { apiRoutes, milliunitsFromMinorUnits } from '@kegel/contract';
import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import fp from 'fastify-plugin';

import type { Config } from '../config';
import { AppError } from '../errors';
import { isFromThisMachine } from '../security/loopback';
import {
  type AppStoreEnvironment,
  type AppStoreVerifier,
  createAppStoreVerifier,
} from '../security/app-store-verifier';

declare module 'fastify' {
  interface FastifyInstance {
    appStore: AppStoreVerifier | null;
    /** The App Store Server API, or null when this server has no key for it (lookups are off). */
    appStoreServerApi: AppStoreServerApi | null;
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

/** One purchase of an order, as Apple signed it and the verifier took it. */
export interface AppStoreOrderTransaction {
  originalTransactionId: string;
  transactionId: string;
  productId: string;
  environment: AppStoreEnvironment;
  /** The whole verified transaction: what a claim by order id records, as a posted one is. */
  payload: JWSTransactionDecodedPayload;
}

/** The App Store Server API's calls, made by the app-store module's client (server-api.ts). */
export interface AppStoreServerApi {
  /**
   * Look Up Order ID: the verified purchases of the order id in Apple's receipt email; none for
   * an id Apple does not know or that is not shaped like one (then Apple is not asked). Throws an
   * AppError 502 when the App Store cannot be reached or refuses the call.
   */
  lookUpOrder(orderId: string): Promise<AppStoreOrderTransaction[]>;
  /**
   * The notification histories this server reads: Apple keeps one per host (Production for 180
   * days, Sandbox for 30), a stand-in at APPLE_API_BASE_URL answers for both as one.
   */
  notificationHistories: NotificationHistorySource[];
  /**
   * One page of Get Notification History: the notifications the App Store tried to send between
   * startDate and endDate, as signed (not verified here: the notification path verifies them).
   * A page after the first repeats the first page's window with its token. Throws as lookUpOrder.
   */
  getNotificationHistory(request: NotificationHistoryRequest): Promise<NotificationHistoryPage>;
  /**
   * Send Consumption Information (the library's current call, V2): the answer to a
   * CONSUMPTION_REQUEST about `transactionId` of that environment. Throws an AppError 502, as
   * lookUpOrder does, when the App Store cannot be reached or refuses the call.
   */
  sendConsumptionInformation(
    environment: AppStoreEnvironment,
    transactionId: string,
    request: ConsumptionRequest,
  ): Promise<void>;
}

/** A notification history the App Store keeps, and for how long it keeps it. */
export interface NotificationHistorySource {
  name: string;
  keptDays: number;
}

export interface NotificationHistoryRequest {
  /** The `name` of one of `notificationHistories`. */
  history: string;
  /** Milliseconds since the epoch, as Apple takes them. */
  startDate: number;
  endDate: number;
  paginationToken?: string | undefined;
}

export interface NotificationHistoryPage {
  signedPayloads: string[];
  hasMore: boolean;
  /** The next page's token, when `hasMore`. */
  paginationToken: string | undefined;
}

/** What the client needs: the key, the app, where to call, and how to verify what comes back. */
export interface AppStoreServerApiSettings {
  issuerId: string;
  keyId: string;
  /** PKCS#8 PEM of the EC P-256 key. */
  privateKey: string;
  bundleId: string;
  /** A stand-in that answers every call; undefined: Apple's Production host, then its Sandbox's. */
  baseUrl: string | undefined;
  /** APPLE_REFUSE_SANDBOX: Apple's Sandbox host is never asked. */
  refuseSandbox: boolean;
  verifier: AppStoreVerifier;
}

export const appStorePlugin = fp<{
  config: Pick<Config, 'appStore' | 'port'>;
  sandboxData: AppStoreSandboxData;
  /** The app-store module's client, handed in by app.ts (a plugin knows no module). */
  createServerApi: (settings: AppStoreServerApiSettings) => AppStoreServerApi;
}>(
  async function appStorePlugin(app, { config, sandboxData, createServerApi }) {
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
          // The sandbox's storefront is the USA: it sells every plan in US dollars.
          priceMilliunits: milliunitsFromMinorUnits(plan.priceCents, 'usd'),
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
    const verifier = settings ? createAppStoreVerifier(settings) : null;
    const serverApiKey = serverApiKeyOf(config, sandbox);
    const serverApi =
      serverApiKey && verifier ? createServerApi({ ...serverApiKey, verifier }) : null;
    if (!serverApi) {
      // One line for everything the key turns on, said once.
      app.log.info(
        'The App Store Server API is off, and with it Apple order lookups and claims, the recovery of missed App Store notifications and answers to refund requests: set APPLE_ISSUER_ID, APPLE_KEY_ID and APPLE_PRIVATE_KEY_PATH (an App Store Server API key) to turn them on',
      );
    }
    app.decorate('appStore', verifier);
    app.decorate('appStoreServerApi', serverApi);
    app.decorate('appStoreSandbox', sandbox ?? null);
    // As Stripe's test clocks: periods the development clock passed renew or expire.
    if (sandbox) app.devClock?.onMoved(() => sandbox.clockMoved());
    app.addHook('onClose', async () => {
      await sandbox?.close();
    });
  },
  { name: 'app-store', dependencies: ['database'] },
);

/**
 * The App Store Server API's key: the sandbox's (it answers that API too, with the key it made at
 * start), or the configured one; none without APPLE_ISSUER_ID and the rest.
 */
function serverApiKeyOf(
  config: Pick<Config, 'appStore'>,
  sandbox: AppStoreSandbox | undefined,
): Omit<AppStoreServerApiSettings, 'verifier'> | undefined {
  if (sandbox) {
    return {
      issuerId: sandbox.serverApiCredentials.issuerId,
      keyId: sandbox.serverApiCredentials.keyId,
      privateKey: sandbox.serverApiCredentials.privateKeyPem,
      bundleId: SANDBOX_APP.bundleId,
      baseUrl: sandbox.baseUrl,
      refuseSandbox: false,
    };
  }
  if (typeof config.appStore !== 'object' || !config.appStore.serverApi) return undefined;
  return {
    ...config.appStore.serverApi,
    bundleId: config.appStore.bundleId,
    refuseSandbox: config.appStore.refuseSandbox,
  };
}
