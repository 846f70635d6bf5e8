import { fileURLToPath } from 'node:url';

import fastifyCompress from '@fastify/compress';
import { apiPaths } from '@kegel/contract';
import { type SmtpInbox, startSmtpInbox } from '@kegel/sandbox/smtp-inbox';
import { startStripeSandbox, type StripeSandbox } from '@kegel/sandbox/stripe-sandbox';
import Fastify, { type FastifyInstance } from 'fastify';
import Stripe from 'stripe';
import {
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';

import type { Config } from './config';
import { devInboxRoutes } from './mail/dev-inbox-routes';
import { OutboxWorker } from './mail/outbox';
import { authRoutes } from './modules/auth/routes';
import { createAuthService } from './modules/auth/service';
import { paymentRoutes } from './modules/payments/routes';
import { createPaymentsService } from './modules/payments/service';
import { healthRoutes } from './modules/health/routes';
import { userRoutes } from './modules/users/routes';
import { authenticatePlugin } from './plugins/authenticate';
import { databasePlugin } from './plugins/database';
import { errorHandlerPlugin, sendRouteNotFound } from './plugins/error-handler';
import { webAppPlugin } from './plugins/web-app';
import { deriveKey } from './security/keys';
import { createPasswordHasher } from './security/password-hasher';
import {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  type RateLimitRule,
} from './security/rate-limiter';
import { createSessionTokens } from './security/session-tokens';

/** apps/web/dist, seen from apps/api/src/app.ts and from the bundle apps/api/dist/main.js alike. */
const BUILT_WEB_APP = fileURLToPath(new URL('../../web/dist/', import.meta.url));

export interface BuildAppOptions {
  /** Directory of the built web app; tests point it at a fixture. */
  webRoot?: string;
  /** Fastify's logger: false in tests, a pino configuration in the server. */
  logger?: boolean | { level: string };
  /** Outbox timing; tests shorten it. */
  mail?: { pollIntervalMs?: number; retryBaseMs?: number; maxAttempts?: number };
  /** Every /auth call from one client address. */
  authRequestsPerAddress?: RateLimitRule;
}

/** Builds the whole server without listening: what `main.ts` starts and what tests drive. */
export async function buildApp(
  config: Config,
  options: BuildAppOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    requestTimeout: 30_000,
    // Opening PGlite and running migrations can take well over Fastify's default 10 s on a busy
    // 2-core machine; a start that is slow is better than one that fails.
    pluginTimeout: 120_000,
    bodyLimit: 256 * 1024,
    trustProxy: config.trustProxy,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  await app.register(errorHandlerPlugin);
  // Compresses API answers and the small files the build did not precompress; the .br/.gz
  // twins of the web app's assets pass through untouched (their Content-Encoding is set).
  await app.register(fastifyCompress);
  await app.register(databasePlugin, { config: config.database });
  const { db } = app.database;

  // Without SMTP_URL (development only: config refuses it in production) mail goes to a local
  // inbox on loopback, through the same SMTP transport as in production.
  let localInbox: SmtpInbox | undefined;
  if (!config.mail.smtpUrl) {
    localInbox = await startSmtpInbox();
    app.log.info(`no SMTP_URL: mail goes to the local inbox, ${config.publicUrl}/dev/inbox`);
  }
  const outboxKey = deriveKey(config.tokenSecret, 'outbox-encryption');
  const outbox = new OutboxWorker(
    db,
    {
      smtpUrl: config.mail.smtpUrl ?? localInbox?.url ?? '',
      from: config.mail.from,
      encryptionKey: outboxKey,
      pollIntervalMs: options.mail?.pollIntervalMs ?? 2_000,
      retryBaseMs: options.mail?.retryBaseMs ?? 30_000,
      maxAttempts: options.mail?.maxAttempts ?? 10,
    },
    app.log,
  );

  const rateLimiter = config.redisUrl
    ? createRedisRateLimiter(config.redisUrl, `${config.redisKeyPrefix}:rate:`)
    : createMemoryRateLimiter();
  const tokens = createSessionTokens(config.tokenSecret);
  const hasher = createPasswordHasher();
  const mail = { encryptionKey: outboxKey, wake: () => outbox.wake() };
  const authService = createAuthService({
    db,
    hasher,
    tokens,
    rateLimiter,
    mail,
    publicUrl: config.publicUrl,
    supportEmail: config.supportEmail,
  });
  // Without STRIPE_SECRET_KEY (development only: config refuses it in production) the official
  // SDK talks to the local Stripe sandbox on loopback, which delivers webhooks back to us.
  let stripeSandbox: StripeSandbox | undefined;
  if (!config.stripe.secretKey) {
    stripeSandbox = await startStripeSandbox({
      webhookSecret: config.stripe.webhookSecret,
      webhookUrl: () => {
        const address = app.server.address();
        const port = typeof address === 'object' && address ? address.port : config.port;
        return `http://127.0.0.1:${port}/api${apiPaths.stripeWebhook}`;
      },
    });
    app.log.info(
      `no STRIPE_SECRET_KEY: payments go to the local Stripe sandbox, ${stripeSandbox.baseUrl}`,
    );
  }
  const stripe = stripeSandbox
    ? new Stripe('sk_test_local_sandbox', {
        host: stripeSandbox.host,
        port: stripeSandbox.port,
        protocol: 'http',
        maxNetworkRetries: 2,
      })
    : new Stripe(config.stripe.secretKey ?? '', { maxNetworkRetries: 2 });
  const paymentsService = createPaymentsService({
    db,
    hasher,
    mail,
    publicUrl: config.publicUrl,
    stripe,
  });

  app.addHook('onReady', async () => outbox.start());
  app.addHook('onClose', async () => {
    await outbox.stop();
    await rateLimiter.close();
    await localInbox?.close();
    await stripeSandbox?.close();
  });

  await app.register(authenticatePlugin, { db, tokens });
  await app.register(
    async function api(api) {
      api.setNotFoundHandler(sendRouteNotFound);
      await api.register(healthRoutes);
      await api.register(authRoutes, {
        authService,
        rateLimiter,
        requestsPerAddress: options.authRequestsPerAddress ?? {
          name: 'auth-requests',
          limit: config.authRequestsPerMinute,
          windowSeconds: 60,
        },
      });
      await api.register(userRoutes, { db });
      await api.register(paymentRoutes, {
        paymentsService,
        stripe,
        webhookSecret: config.stripe.webhookSecret,
      });
    },
    { prefix: '/api' },
  );
  if (localInbox) await app.register(devInboxRoutes, { inbox: localInbox });

  await app.register(webAppPlugin, { root: options.webRoot ?? BUILT_WEB_APP });
  return app;
}
