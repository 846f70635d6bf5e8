// The Stripe client: the official SDK, pointed at Stripe with STRIPE_SECRET_KEY (or at the Stripe
// stand-in of STRIPE_API_URL), or (development only) at a local Stripe sandbox of its own on
// loopback, which delivers its webhooks back to this server.
import { apiRoutes } from '@kegel/contract';
import type { StripeSandbox } from '@kegel/sandbox/stripe-sandbox';
import fp from 'fastify-plugin';
import Stripe from 'stripe';

import type { Config } from '../config';

declare module 'fastify' {
  interface FastifyInstance {
    stripe: Stripe;
  }
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
    const stripe = sandbox
      ? new Stripe(SANDBOX_SECRET_KEY, {
          host: sandbox.host,
          port: sandbox.port,
          protocol: 'http',
          maxNetworkRetries: 2,
        })
      : new Stripe(config.stripe.secretKey ?? '', {
          maxNetworkRetries: 2,
          ...(config.stripe.apiUrl ? sdkEndpoint(config.stripe.apiUrl) : {}),
        });
    app.decorate('stripe', stripe);
    app.addHook('onClose', async () => {
      await sandbox?.close();
    });
  },
  { name: 'payments' },
);

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
