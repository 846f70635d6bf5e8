import { fileURLToPath } from 'node:url';

import fastifyCompress from '@fastify/compress';
import { apiPaths } from '@kegel/contract';
import { type IdentitySandbox, startIdentitySandbox } from '@kegel/sandbox/identity-sandbox';
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
import { authRoutes, limitRequestsPerAddress } from './modules/auth/routes';
import { createAuthService } from './modules/auth/service';
import { paymentRoutes } from './modules/payments/routes';
import { createPaymentsService } from './modules/payments/service';
import { healthRoutes } from './modules/health/routes';
import { userRoutes } from './modules/users/routes';
import { createGoogleCodeExchange } from './modules/social/google-code-exchange';
import { socialRoutes } from './modules/social/routes';
import { createSocialService } from './modules/social/service';
import { createIdTokenVerifier } from './security/id-token-verifier';
import { createSignInNonces } from './security/sign-in-nonces';
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

declare module 'fastify' {
  interface FastifyInstance {
    /** The local Google/Apple stand-in, when this server runs one (development and tests). */
    identitySandbox: IdentitySandbox | null;
  }
}

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

  // Google or Apple without a client id (development only: switched off in production) sign in
  // through the local identity sandbox, reached over the same protocols as the real providers.
  let identitySandbox: IdentitySandbox | undefined;
  if (config.google === 'sandbox' || config.apple === 'sandbox') {
    identitySandbox = await startIdentitySandbox({
      google: { clientId: SANDBOX_GOOGLE_CLIENT.id, clientSecret: SANDBOX_GOOGLE_CLIENT.secret },
      apple: { clientId: SANDBOX_APPLE_CLIENT_ID },
      // The app's own origin, and Vite's dev server (npm run dev:web) that proxies to it.
      allowedOrigins: [new URL(config.publicUrl).origin, 'http://localhost:5173'],
    });
    app.log.info(
      `no GOOGLE_CLIENT_ID / APPLE_CLIENT_ID: sign-in goes to the local identity sandbox, ${identitySandbox.baseUrl}`,
    );
  }
  // Tests mint codes and tokens through it; nothing in the product reads it.
  app.decorate('identitySandbox', identitySandbox ?? null);
  const social = socialSettings(config, identitySandbox);
  const socialService = createSocialService({
    db,
    startSession: (userId) => authService.startSession(userId),
    mail,
    nonces: createSignInNonces(config.tokenSecret),
    publicUrl: config.publicUrl,
    supportEmail: config.supportEmail,
    google: social.google,
    apple: social.apple,
  });

  app.addHook('onReady', async () => outbox.start());
  app.addHook('onClose', async () => {
    await outbox.stop();
    await rateLimiter.close();
    await localInbox?.close();
    await stripeSandbox?.close();
    await identitySandbox?.close();
  });

  await app.register(authenticatePlugin, { db, tokens });
  await app.register(
    async function api(api) {
      api.setNotFoundHandler(sendRouteNotFound);
      await api.register(healthRoutes);
      await api.register(async function signIn(auth) {
        auth.addHook(
          'onRequest',
          limitRequestsPerAddress(
            rateLimiter,
            options.authRequestsPerAddress ?? {
              name: 'auth-requests',
              limit: config.authRequestsPerMinute,
              windowSeconds: 60,
            },
          ),
        );
        await auth.register(authRoutes, { authService });
        await auth.register(socialRoutes, { socialService, providers: social.providers });
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

/** The sandbox's own client registrations: only the sandbox and this server know them. */
const SANDBOX_GOOGLE_CLIENT = {
  id: 'kegel-coach-sandbox.apps.googleusercontent.com',
  secret: 'sandbox-secret',
};
const SANDBOX_APPLE_CLIENT_ID = 'app.kegelcoach.sandbox.web';

/** What each provider runs on (real, sandbox or off) and what the web app is told to load. */
function socialSettings(config: Config, sandbox: IdentitySandbox | undefined) {
  const google =
    config.google === 'sandbox' && sandbox
      ? {
          issuer: sandbox.google.issuer,
          clientId: SANDBOX_GOOGLE_CLIENT.id,
          clientSecret: SANDBOX_GOOGLE_CLIENT.secret,
          scriptUrl: sandbox.google.scriptUrl,
        }
      : typeof config.google === 'object'
        ? { ...config.google, scriptUrl: 'https://accounts.google.com/gsi/client' }
        : undefined;
  const apple =
    config.apple === 'sandbox' && sandbox
      ? {
          issuer: sandbox.apple.issuer,
          jwksUrl: sandbox.apple.jwksUrl,
          clientId: SANDBOX_APPLE_CLIENT_ID,
          scriptUrl: sandbox.apple.scriptUrl,
        }
      : typeof config.apple === 'object'
        ? {
            ...config.apple,
            scriptUrl:
              'https://appleid.cdn-apple.com/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js',
          }
        : undefined;

  const googleExchange = google && createGoogleCodeExchange(google);
  return {
    google:
      google && googleExchange
        ? {
            exchange: googleExchange,
            verifier: createIdTokenVerifier({
              jwksUrl: () => googleExchange.jwksUrl(),
              issuers: [google.issuer],
              audience: google.clientId,
            }),
          }
        : undefined,
    apple: apple
      ? {
          verifier: createIdTokenVerifier({
            jwksUrl: apple.jwksUrl,
            issuers: [apple.issuer],
            audience: apple.clientId,
          }),
        }
      : undefined,
    providers: {
      google: google ? { clientId: google.clientId, scriptUrl: google.scriptUrl } : null,
      // Spec §7: Apple redirects to the login route.
      apple: apple
        ? {
            clientId: apple.clientId,
            scriptUrl: apple.scriptUrl,
            redirectUri: `${config.publicUrl}/auth/login`,
          }
        : null,
    },
  };
}
