// The composition root: builds the whole server without listening. `main.ts` starts it and the
// tests drive it. Each plugin owns one outside world and names the plugins it needs.
import { fileURLToPath } from 'node:url';

import fastifyCompress from '@fastify/compress';
import Fastify, {
  type FastifyInstance,
  type FastifyLoggerOptions,
  type FastifyServerOptions,
  type onRouteHookHandler,
} from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';

import type { Config } from './config';
import { answerClientError } from './http/client-errors';
import { answerWhatNodeAnswers } from './http/node-level-answers';
import { longestPathParameter } from './http/path-parameter-limit';
import { serializeRequestForLog } from './http/request-log';
import { validatorCompiler } from './http/request-validation';
import { frameworkErrorsOf, requestIdOf } from './http/router-errors';
import { moduleRoutes } from './modules/module-routes';
import { findSignedInAccount } from './modules/auth/service';
import { allowedMethodsPlugin } from './plugins/allowed-methods';
import { apiDocsPlugin } from './plugins/api-docs';
import { authenticatePlugin } from './plugins/authenticate';
import { databasePlugin } from './plugins/database';
import { devClockPlugin } from './plugins/dev-clock';
import { errorHandlerPlugin } from './plugins/error-handler';
import { identityPlugin } from './plugins/identity';
import { jsonBodyPlugin } from './plugins/json-body';
import { mailPlugin, type MailPluginOptions } from './plugins/mail';
import { metricsPlugin } from './plugins/metrics';
import { createAppStoreServerApi, listAppStorePlans } from './modules/app-store';
import { usersRepo } from './modules/users';
import { appStorePlugin } from './plugins/app-store';
import { paymentsPlugin } from './plugins/payments';
import { pwnedPasswordsPlugin } from './plugins/pwned-passwords';
import { rateLimitPlugin } from './plugins/rate-limit';
import { securityHeadersPlugin } from './plugins/security-headers';
import { shutdownPlugin } from './plugins/shutdown';
import { webAppPlugin } from './plugins/web-app';
import type { PasswordHasher } from './security/password-hasher';

// apps/web/dist, seen from apps/api/src/app.ts and from the bundle apps/api/dist/main.js alike.
const BUILT_WEB_APP = fileURLToPath(new URL('../../web/dist/', import.meta.url));

export interface BuildAppOptions {
  /** Directory of the built web app; tests point it at a fixture. */
  webRoot?: string;
  /**
   * Fastify's logger: false in tests, else a level (the server's is LOG_LEVEL) and where the lines
   * go (standard output unless a test captures them).
   */
  logger?: false | { level: string; stream?: FastifyLoggerOptions['stream'] };
  /** Outbox timing; tests shorten it. */
  mail?: MailPluginOptions['timing'];
  /** Tests count the hashes (the costly work) a call spends. */
  passwordHasher?: PasswordHasher;
  /** How long a new password waits for Pwned Passwords; tests shorten it. */
  pwnedPasswordsTimeoutMs?: number;
  /**
   * How long a rate-limit call waits on Redis before counting in this process (500 ms); tests
   * that check counts shared across processes lengthen it, so a loaded machine's slow answer is
   * not taken for an outage.
   */
  redisWaitMs?: number;
  /** Told of every route as it is registered (the API document's drift test lists them). */
  onRoute?: onRouteHookHandler;
}

/** How long a request may take to arrive, headers and body (408 past it). */
const REQUEST_TIMEOUT_MS = 30_000;

export async function buildApp(
  config: Config,
  options: BuildAppOptions = {},
): Promise<FastifyInstance> {
  // The longest path parameter the contract declares: the router refuses no value a call takes.
  const maxParamLength = longestPathParameter();
  const app = createServer(config, options.logger ?? { level: config.logLevel }, maxParamLength);
  if (options.onRoute) app.addHook('onRoute', options.onRoute);

  await app.register(errorHandlerPlugin);
  // Before any route: it learns every route as it is added, for the 405's Allow.
  await app.register(allowedMethodsPlugin, { maxParamLength });
  // Before any route: every JSON body is parsed by it.
  await app.register(jsonBodyPlugin);
  // Before anything that adds routes: its hook closes the connection of every answer once the
  // process is shutting down, pages and errors included.
  await app.register(shutdownPlugin);
  // Before anything that adds routes: the headers' hooks must exist when a route is added, and
  // the policy names the sign-in scripts the identity plugin decides on.
  await app.register(identityPlugin, { config });
  await app.register(securityHeadersPlugin, { config });
  // Compresses API answers and the small files the build did not precompress; the .br/.gz twins
  // of the web app's assets pass through untouched (their Content-Encoding is set).
  await app.register(fastifyCompress);
  // First among the outside worlds, so that it times every request and the others can report.
  await app.register(metricsPlugin, { config });
  await app.register(databasePlugin, { config: config.database });
  // Before the sandboxes and jobs, which listen to it; null in production.
  await app.register(devClockPlugin, { config });
  await app.register(mailPlugin, { config, timing: options.mail });
  await app.register(paymentsPlugin, { config });
  await app.register(appStorePlugin, {
    config,
    // Read when the sandbox starts, once the database plugin has run.
    sandboxData: {
      listPlans: () => listAppStorePlans(app.database.db),
      findAccountId: async (email) => (await usersRepo.findUserByEmail(app.database.db, email))?.id,
    },
    createServerApi: createAppStoreServerApi,
  });
  await app.register(rateLimitPlugin, { config, redisWaitMs: options.redisWaitMs });
  await app.register(pwnedPasswordsPlugin, {
    config,
    timeoutMs: options.pwnedPasswordsTimeoutMs,
  });
  await app.register(authenticatePlugin, {
    tokenSecret: config.tokenSecret,
    findSignedInAccount: (claims) => findSignedInAccount(app.database.db, claims),
  });
  await app.register(apiDocsPlugin, {
    publicUrl: config.publicUrl,
    keepsAuthorization: config.environment !== 'production',
  });
  await app.register(moduleRoutes, {
    prefix: '/api',
    config,
    passwordHasher: options.passwordHasher,
  });
  await app.register(webAppPlugin, {
    root: options.webRoot ?? BUILT_WEB_APP,
    serveSourceMaps: config.environment !== 'production',
  });
  return app;
}

/**
 * The Fastify server with its options: the timeouts, limits and proxies, and every error Fastify
 * or Node would answer on its own taken to the one error shape.
 */
function createServer(
  config: Config,
  logger: BuildAppOptions['logger'],
  maxParamLength: number,
): FastifyInstance {
  const app: FastifyInstance = Fastify({
    // Requests are logged by their path: emailed links carry codes in their query (request-log.ts).
    logger: logger && { ...logger, serializers: { req: serializeRequestForLog } },
    requestTimeout: REQUEST_TIMEOUT_MS,
    // Opening PGlite and running migrations can take well over Fastify's default 10 s on a busy
    // 2-core machine; a start that is slow is better than one that fails.
    pluginTimeout: 120_000,
    bodyLimit: 256 * 1024,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    routerOptions: { maxParamLength },
    // The router's errors and the HTTP parser's answer in the error shape, like every other
    // error (http/router-errors.ts, http/client-errors.ts).
    frameworkErrors: frameworkErrorsOf(() => app),
    // One id per request, a request routed again by frameworkErrors included.
    genReqId: requestIdOf,
    clientErrorHandler: answerClientError,
    // Answered in the error shape instead of Node's empty 400 (http/node-level-answers.ts).
    http: { requireHostHeader: false },
    // zod validates every request and serializes every answer (fastify-type-provider-zod). Given
    // here as the builders, rather than set once the server exists, they keep Fastify from
    // loading its own (ajv with its formats, fast-json-stringify): a megabyte of JavaScript that
    // an idle production server would hold in memory for nothing (issue 30).
    schemaController: { compilersFactory: zodCompilers },
  }).withTypeProvider<ZodTypeProvider>();
  // Node checks no connection against requestTimeout while headersTimeout (its default 60 s) is
  // longer: a body that stopped arriving would hold its socket for ever, never answered 408.
  app.server.headersTimeout = REQUEST_TIMEOUT_MS;
  answerWhatNodeAnswers(app);
  if (config.trustProxy === true) {
    app.log.warn(
      'TRUST_PROXY=true trusts every X-Forwarded-For hop: any client can choose the address its rate limits count against. Give the number of proxies (e.g. 1) or their addresses; production refuses true.',
    );
  }
  return app;
}

/**
 * The builders Fastify asks for a route's validator and serializer: zod's, whatever schemas were
 * added (none are: every schema is a zod one). Fastify's types describe ajv's builders, whose
 * arguments zod's compilers take the same way; hence the cast.
 */
const zodCompilers = {
  buildValidator: () => validatorCompiler,
  buildSerializer: () => serializerCompiler,
} as unknown as NonNullable<FastifyServerOptions['schemaController']>['compilersFactory'];

/**
 * TRUST_PROXY as Fastify takes it. A hop count becomes a function: Fastify 5 turns a bare number
 * into "trust nobody" (it cannot tell a proxy from a client that connects directly), which would
 * count every client behind the load balancer as the balancer. With a count, the server must be
 * reachable only through its proxies (README, Configuration).
 */
function fastifyTrustProxy(
  trustProxy: Config['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trustProxy !== 'number') return trustProxy;
  const hops = trustProxy;
  return function isWithinProxyHops(_address, hop) {
    return hop < hops;
  };
}
