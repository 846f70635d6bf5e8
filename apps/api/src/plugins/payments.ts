// The Stripe client: the official SDK, pointed at Stripe with STRIPE_SECRET_KEY (or at the Stripe
// stand-in of STRIPE_API_URL), or (development only) at a local Stripe sandbox of its own on
// loopback, which delivers its webhooks back to this server.
import { apiRoutes } from '@kegel/contract';
import type { StripeSandbox } from '@kegel/sandbox/stripe-sandbox';
import fp from 'fastify-plugin';
import type Stripe from 'stripe';

import type { Config } from '../config';

/**
 * The server's Stripe client, made with the first call that needs it: the SDK (some 4 MB of heap,
 * a class per resource of Stripe's API) is loaded then, not at start.
 */
export type StripeClient = () => Promise<Stripe>;

declare module 'fastify' {
  interface FastifyInstance {
    stripe: StripeClient;
  }
}

let loadingSdk: Promise<typeof Stripe> | undefined;
let loadedSdk: typeof Stripe | undefined;

/** The Stripe SDK's module, loaded once, with the first call that needs it. */
export function loadStripeSdk(): Promise<typeof Stripe> {
  loadingSdk ??= import('stripe').then(({ default: sdk }) => (loadedSdk = sdk));
  return loadingSdk;
}

/**
 * The SDK if it is loaded, without loading it: for telling Stripe's errors from others, since no
 * error can be Stripe's before the SDK is loaded.
 */
export function loadedStripeSdk(): typeof Stripe | undefined {
  return loadedSdk;
}

/** The key the local sandbox takes, and refuses any other, as Stripe does. */
const SANDBOX_SECRET_KEY = 'sk_test_local_sandbox';

export const paymentsPlugin = fp<{ config: Pick<Config, 'stripe' | 'port'> }>(
  async function paymentsPlugin(app, { config }) {
    let sandbox: StripeSandbox | undefined;
    if (!config.stripe.secretKey) {
      // Loaded here only: production, which refuses the sandbox, never carries it.
      const { startStripeSandbox } = await import('@kegel/sandbox/stripe-sandbox');
      sandbox = await startStripeSandbox({
        webhookSecret: config.stripe.webhookSecret,
        secretKey: SANDBOX_SECRET_KEY,
        webhookUrl: () => {
          const address = app.server.address();
          const port = typeof address === 'object' && address ? address.port : config.port;
          return `http://127.0.0.1:${port}/api${apiRoutes.receiveStripeEvent.path}`;
        },
      });
      app.log.info(
        `no STRIPE_SECRET_KEY: payments go to the local Stripe sandbox, ${sandbox.baseUrl}`,
      );
    }
    // Read at start all the same: a malformed STRIPE_API_URL fails the start, not the first call.
    const endpoint = sandbox
      ? { host: sandbox.host, port: sandbox.port, protocol: 'http' as const }
      : config.stripe.apiUrl
        ? sdkEndpoint(config.stripe.apiUrl)
        : {};
    const secretKey = sandbox ? SANDBOX_SECRET_KEY : (config.stripe.secretKey ?? '');
    app.decorate('stripe', stripeClientOf(secretKey, { maxNetworkRetries: 2, ...endpoint }));
    app.addHook('onClose', async () => {
      await sandbox?.close();
    });
  },
  { name: 'payments' },
);

/** A Stripe client of `secretKey`, made (and the SDK loaded) with its first use, then kept. */
export function stripeClientOf(secretKey: string, options?: Stripe.StripeConfig): StripeClient {
  let client: Promise<Stripe> | undefined;
  return () => (client ??= loadStripeSdk().then((Sdk) => new Sdk(secretKey, options)));
}

/** The SDK's host, port and protocol settings for a base URL (STRIPE_API_URL). */
function sdkEndpoint(apiUrl: string): { host: string; port: number; protocol: 'http' | 'https' } {
  const url = new URL(apiUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return {
    host: url.hostname,
    port: Number(url.port) || (protocol === 'http' ? 80 : 443),
    protocol,
  };
}
