// The environment, parsed once. Nothing else in the API reads `process.env`: everything it needs
// is a field of `Config`, and a wrong value stops the process at start with the variable's name.
//
// Defaults make a fresh clone work offline (PGlite under DATA_DIR, secrets generated into
// DATA_DIR). `NODE_ENV=production` refuses the defaults that are only safe on a developer's
// machine.
import { createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';

import * as z from 'zod';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const optionalString = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

/** A rate budget: a whole number of at least 1. */
const budget = (byDefault: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1'))
    .default(byDefault);

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z
    .string()
    .trim()
    .min(1, 'must be a host name or IP address, e.g. 0.0.0.0')
    .default('localhost'),
  PORT: z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number from 1 to 65535')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be from 1 to 65535').max(65535, 'must be from 1 to 65535'))
    .default(3000),
  PUBLIC_URL: optionalString.pipe(
    z
      .url({
        protocol: /^https?$/,
        error: 'must be an http(s) URL such as https://app.example.com',
      })
      .optional(),
  ),
  DATA_DIR: z.string().trim().min(1).default('./data'),
  DATABASE_URL: optionalString.pipe(
    z
      .url({
        protocol: /^postgres(ql)?$/,
        error: 'must be a PostgreSQL URL such as postgres://user:password@host:5432/database',
      })
      .optional(),
  ),
  TOKEN_SECRET: optionalString.pipe(
    z.string().min(32, 'must be at least 32 characters (e.g. openssl rand -base64 48)').optional(),
  ),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  SMTP_URL: optionalString.pipe(
    z
      .url({
        protocol: /^smtps?$/,
        error: 'must be an SMTP URL such as smtps://user:password@smtp.example.com:465',
      })
      .optional(),
  ),
  SMTP_ALLOW_INSECURE: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .transform((value) => value === 'true')
    .optional(),
  MAIL_FROM: z
    .string()
    .trim()
    .min(3)
    .regex(/^[^\r\n]+$/, 'must be one line, e.g. Kegel Coach <no-reply@example.com>')
    .default('Kegel Coach <no-reply@kegelcoach.app>'),
  REDIS_URL: optionalString.pipe(
    z
      .url({ protocol: /^rediss?$/, error: 'must be a Redis URL such as redis://127.0.0.1:6379' })
      .optional(),
  ),
  // The defaults are sized for 5,000 people behind one NAT address (docs/security.md).
  AUTH_REQUESTS_PER_MINUTE: budget(5000),
  AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR: budget(200),
  SIGN_IN_PAGE_REQUESTS_PER_MINUTE: budget(2000),
  REGISTRATIONS_PER_ADDRESS_PER_HOUR: budget(10),
  CHECKOUTS_PER_ADDRESS_PER_HOUR: budget(20),
  CHECKOUTS_PER_EMAIL_PER_HOUR: budget(30),
  CHECKOUT_LOOKUPS_PER_ADDRESS_PER_HOUR: budget(100),
  REDIS_KEY_PREFIX: z.string().trim().min(1).default('kegel'),
  SUPPORT_EMAIL: z
    .email('must be an email address such as support@example.com')
    .default('support@kegelcoach.app'),
  STRIPE_SECRET_KEY: optionalString.pipe(
    z
      .string()
      .regex(/^(sk|rk)_(test|live)_\w+$/, 'must be a Stripe secret key (sk_test_… or sk_live_…)')
      .optional(),
  ),
  STRIPE_API_URL: optionalString.pipe(
    z
      .url({
        protocol: /^https?$/,
        error: 'must be the base URL of a Stripe API, such as https://api.stripe.com',
      })
      .refine((value) => ['', '/'].includes(new URL(value).pathname), {
        error: 'must be a base URL without a path, such as http://127.0.0.1:12111',
      })
      .optional(),
  ),
  STRIPE_WEBHOOK_SECRET: optionalString.pipe(
    z
      .string()
      .regex(/^whsec_\S+$/, 'must be a webhook signing secret (whsec_…)')
      .optional(),
  ),
  GOOGLE_CLIENT_ID: optionalString.pipe(
    z
      .string()
      .regex(/^\S+$/, 'must be an OAuth client id such as 1234-abc.apps.googleusercontent.com')
      .optional(),
  ),
  GOOGLE_CLIENT_SECRET: optionalString,
  GOOGLE_ISSUER: z
    .url({ protocol: /^https?$/, error: 'must be an OpenID Connect issuer URL' })
    .default('https://accounts.google.com'),
  APPLE_CLIENT_ID: optionalString.pipe(
    z.string().regex(/^\S+$/, 'must be a Services ID such as com.example.web').optional(),
  ),
  APPLE_ISSUER: z
    .url({ protocol: /^https?$/, error: 'must be the issuer of Apple ID tokens' })
    .default('https://appleid.apple.com'),
  APPLE_JWKS_URL: z
    .url({ protocol: /^https?$/, error: "must be the URL of Apple's public keys" })
    .default('https://appleid.apple.com/auth/keys'),
  APPLE_BUNDLE_ID: optionalString.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9.-]+$/, "must be the iOS app's bundle id, e.g. app.kegelcoach.ios")
      .optional(),
  ),
  APPLE_APP_APPLE_ID: optionalString.pipe(
    z
      .string()
      .regex(/^\d+$/, "must be the app's numeric Apple id (App Store Connect → App Information)")
      .transform(Number)
      .optional(),
  ),
  APPLE_REFUSE_SANDBOX: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('false'),
  APPLE_ROOT_CERTIFICATES: optionalString,
  // The App Store Server API key, which the server signs its calls to Apple with (Look Up Order ID
  // finds a member by the order id of Apple's receipt email). App Store Connect > Users and Access
  // > Integrations > In-App Purchase: the issuer id above the list, the key's id, and the .p8
  // file downloaded once when the key is made. All three or none; none turns order lookups off.
  APPLE_ISSUER_ID: optionalString.pipe(
    z
      .string()
      .regex(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
        "must be the issuer id of App Store Connect's keys page, a UUID such as 57246542-96fe-1a63-e053-0824d011072a",
      )
      .optional(),
  ),
  APPLE_KEY_ID: optionalString.pipe(
    z
      .string()
      .regex(/^[A-Z0-9]{10}$/, "must be the key's 10-character id, such as 2X9R4HXF34")
      .optional(),
  ),
  /** The path of the .p8 file: an EC P-256 private key in PKCS#8 PEM, checked at start. */
  APPLE_PRIVATE_KEY_PATH: optionalString,
  // Where the App Store Server API calls go instead of Apple's hosts (api.storekit.apple.com, and
  // api.storekit-sandbox.apple.com for Sandbox orders): a stand-in's address, for tests and staging.
  APPLE_API_BASE_URL: optionalString.pipe(
    z
      .url({
        protocol: /^https?$/,
        error:
          'must be the base URL of an App Store Server API, such as https://api.storekit.apple.com',
      })
      .optional(),
  ),
  // What the server tells Apple it would like done with a consenting member's refund request
  // (Send Consumption Information's refundPreference; ADR 023): none, decline once more than a
  // share of the period was used, or a prorated refund.
  APPLE_REFUND_PREFERENCE: z
    .string()
    .default('none')
    .transform((value, context) => {
      const preference = parseRefundPreference(value);
      if (!preference) {
        context.addIssue({
          code: 'custom',
          message:
            'must be none, decline-past:<percent of the period used, 0 to 100> (e.g. decline-past:50) or grant-prorated',
        });
        return z.NEVER;
      }
      return preference;
    }),
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((value, context) => {
      const trust = parseTrustProxy(value);
      if (trust === undefined) {
        context.addIssue({
          code: 'custom',
          message:
            'must be false, the number of proxies in front of the server (e.g. 1) or their addresses or CIDRs, comma-separated',
        });
        return z.NEVER;
      }
      return trust;
    }),
  PWNED_PASSWORDS: optionalString.pipe(
    z.enum(['on', 'off'], { error: 'must be on or off' }).optional(),
  ),
  PWNED_PASSWORDS_URL: z
    .url({ protocol: /^https?$/, error: 'must be the URL of the Pwned Passwords range API' })
    .default('https://api.pwnedpasswords.com'),
  // Longer than a load balancer needs to notice a failing /api/ready (HAProxy: two checks a second
  // apart), shorter than an orchestrator waits before it kills (Docker: 10 s after SIGTERM).
  SHUTDOWN_DRAIN_SECONDS: z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number of seconds from 0 to 120')
    .transform(Number)
    .pipe(z.number().int().max(120, 'must be a whole number of seconds from 0 to 120'))
    .default(5),
  METRICS_TOKEN: optionalString.pipe(
    z
      .string()
      .min(32, 'must be at least 32 characters (e.g. openssl rand -hex 32)')
      .regex(
        /^[\x21-\x7e]+$/,
        'must be printable ASCII without spaces (it is sent as a bearer token)',
      )
      .optional(),
  ),
});

export type DatabaseConfig = (
  { kind: 'pglite'; dataDir: string } | { kind: 'postgres'; url: string }
) & {
  /** Outside production: `now()` reads the development clock (db/dev-clock.ts). */
  devClock?: boolean;
};

export interface Config {
  environment: 'development' | 'production' | 'test';
  host: string;
  port: number;
  /** Where people reach the product; every link in an email is built from it, never from Host. */
  publicUrl: string;
  dataDir: string;
  database: DatabaseConfig;
  /** Signs access tokens (HS256). */
  tokenSecret: string;
  logLevel: (typeof LOG_LEVELS)[number];
  /**
   * Where mail goes; without SMTP_URL, a local inbox on loopback (development only). With
   * `requireTls`, mail leaves only over TLS (smtps://, or STARTTLS that the server must offer).
   */
  mail: { smtpUrl: string | undefined; from: string; requireTls: boolean };
  /** Shared rate-limit counters; without it, each process counts on its own. */
  redisUrl: string | undefined;
  /** /auth calls of any kind one client address may make per minute: a flood guard. */
  authRequestsPerMinute: number;
  /**
   * Attempts one client address may make per hour: wrong passwords (for accounts that did not
   * sign in from there lately), registrations and reset requests.
   */
  authAttemptsPerAddressPerHour: number;
  /** Calls the sign-in and registration pages make on load (providers, Apple nonce), per address. */
  signInPageRequestsPerMinute: number;
  /** New accounts one client address may create per hour. */
  registrationsPerAddressPerHour: number;
  /** Checkout starts (each a Stripe API call) one client address may make per hour. */
  checkoutsPerAddressPerHour: number;
  /**
   * Checkout starts for one email per hour by anyone but its signed-in member, and by him apart
   * (a budget strangers cannot spend).
   */
  checkoutsPerEmailPerHour: number;
  /** Checkout lookups (`/purchase/complete`, each a Stripe API call) per client address and hour. */
  checkoutLookupsPerAddressPerHour: number;
  /** Namespaces this deployment's keys in a shared Redis. */
  redisKeyPrefix: string;
  /** Named in emails as the address to write to. */
  supportEmail: string;
  stripe: {
    /** Without it, the local payment sandbox stands in for Stripe (development only). */
    secretKey: string | undefined;
    /**
     * Where the SDK sends its calls with a secret key; undefined for Stripe itself. Another
     * address serves one Stripe stand-in to several processes (`npm run cluster`).
     */
    apiUrl: string | undefined;
    /** Verifies the Stripe-Signature of webhook deliveries. */
    webhookSecret: string;
  };
  /**
   * Sign in with Google and Apple. A provider without a client id is served by the local
   * identity sandbox in development and is switched off in production.
   */
  google: { clientId: string; clientSecret: string; issuer: string } | 'sandbox' | 'off';
  apple: { clientId: string; issuer: string; jwksUrl: string } | 'sandbox' | 'off';
  /**
   * App Store purchases of the iOS app. Without APPLE_BUNDLE_ID: the local App Store sandbox in
   * development, off in production (its routes answer 404).
   */
  appStore:
    | {
        bundleId: string;
        /**
         * The App Store Server API key (APPLE_ISSUER_ID, APPLE_KEY_ID, APPLE_PRIVATE_KEY_PATH);
         * without it, its calls (order lookups) are off.
         */
        serverApi: AppStoreServerApiKey | undefined;
        /** Needed to verify Production payloads; without it they are refused. */
        appAppleId: number | undefined;
        /** True refuses Sandbox payloads (App Review and TestFlight buy in the Sandbox). */
        refuseSandbox: boolean;
        /** DER of each root certificate to trust. */
        rootCertificates: Buffer[];
      }
    | 'sandbox'
    | 'off';
  /** APPLE_REFUND_PREFERENCE: the refund preference sent with a consenting member's usage. */
  appleRefundPreference: AppleRefundPreference;
  /**
   * Which X-Forwarded-For hops to believe, as Fastify's `trustProxy` takes it: false (none: the
   * socket's address is the client), a number of proxies in front of the server, or the proxies'
   * addresses and CIDRs. `true` (every hop) only outside production: it lets a client choose
   * the address its limits count against.
   */
  trustProxy: boolean | number | string[];
  /**
   * Have I Been Pwned's Pwned Passwords range API, asked whether a new password is breached:
   * on by default in production only. An unanswered question never refuses a password.
   */
  pwnedPasswords: { url: string } | 'off';
  /**
   * The bearer token that opens /metrics to scrapers beyond loopback; without it, only clients
   * on this machine that come straight to the process (not through a proxy) may read it.
   */
  metricsToken: string | undefined;
  /**
   * How long a process told to stop (SIGTERM) keeps serving while /api/ready fails, so that the
   * load balancer stops sending it requests before it stops taking them (docs/deployment.md,
   * Health and readiness).
   */
  shutdownDrainSeconds: number;
}

/**
 * What the server prefers Apple do with a refund request: say nothing, decline when more than
 * `usedPercent` of the period was used (else say nothing), or grant a prorated refund.
 */
export type AppleRefundPreference =
  { kind: 'none' } | { kind: 'decline-past'; usedPercent: number } | { kind: 'grant-prorated' };

function parseRefundPreference(value: string): AppleRefundPreference | undefined {
  if (value === 'none') return { kind: 'none' };
  if (value === 'grant-prorated') return { kind: 'grant-prorated' };
  const percent = /^decline-past:(\d{1,3}(?:\.\d+)?)$/.exec(value)?.[1];
  if (percent === undefined || Number(percent) > 100) return undefined;
  return { kind: 'decline-past', usedPercent: Number(percent) };
}

/** What the server signs its App Store Server API calls with, and where they go. */
export interface AppStoreServerApiKey {
  issuerId: string;
  keyId: string;
  /** The .p8 file's content: PKCS#8 PEM of an EC P-256 key. */
  privateKey: string;
  /** APPLE_API_BASE_URL; undefined: Apple's host for each environment. */
  baseUrl: string | undefined;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Environment = Record<string, string | undefined>;

const SENSITIVE_URLS = new Set(['DATABASE_URL', 'SMTP_URL', 'REDIS_URL']);

export function loadConfig(env: Environment = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const variable = String(issue.path[0]);
        const given = env[variable];
        // Secrets and URLs that can carry passwords are never echoed.
        const isSensitive =
          variable.includes('SECRET') || variable.includes('TOKEN') || SENSITIVE_URLS.has(variable);
        const shown = isSensitive ? '' : ` (got "${given ?? ''}")`;
        return `${variable}: ${issue.message}${shown}`;
      }),
    );
  }
  const values = parsed.data;
  const isProduction = values.NODE_ENV === 'production';
  const problems: string[] = [];

  if (isProduction && !values.TOKEN_SECRET) {
    problems.push('TOKEN_SECRET: required in production (generated secrets are refused)');
  }
  if (isProduction && !values.SMTP_URL) {
    problems.push('SMTP_URL: required in production (the local inbox sandbox is refused)');
  }
  if (isProduction && !values.STRIPE_SECRET_KEY) {
    problems.push('STRIPE_SECRET_KEY: required in production (the payment sandbox is refused)');
  }
  if (values.STRIPE_API_URL && !values.STRIPE_SECRET_KEY) {
    problems.push(
      'STRIPE_API_URL: needs STRIPE_SECRET_KEY (without a key the local sandbox stands in for Stripe)',
    );
  }
  if (isProduction && !values.STRIPE_WEBHOOK_SECRET) {
    problems.push('STRIPE_WEBHOOK_SECRET: required in production (generated secrets are refused)');
  }
  if (values.GOOGLE_CLIENT_ID && !values.GOOGLE_CLIENT_SECRET) {
    problems.push(
      'GOOGLE_CLIENT_SECRET: required with GOOGLE_CLIENT_ID (the code exchange needs it)',
    );
  }
  if (isProduction) {
    // Identity providers' keys and endpoints over plain http could be swapped on the way, and
    // a password's hash prefix is nobody else's business.
    for (const name of [
      'STRIPE_API_URL',
      'GOOGLE_ISSUER',
      'APPLE_ISSUER',
      'APPLE_JWKS_URL',
      'APPLE_API_BASE_URL',
      'PWNED_PASSWORDS_URL',
    ] as const) {
      if (values[name]?.startsWith('http://'))
        problems.push(`${name}: must be https in production`);
    }
  }
  if (isProduction && values.APPLE_BUNDLE_ID && !values.APPLE_APP_APPLE_ID) {
    problems.push(
      'APPLE_APP_APPLE_ID: required in production with APPLE_BUNDLE_ID (Production payloads are verified against it)',
    );
  }
  if (isProduction && values.APPLE_BUNDLE_ID && !values.APPLE_ROOT_CERTIFICATES) {
    problems.push(
      'APPLE_ROOT_CERTIFICATES: required in production with APPLE_BUNDLE_ID (the paths of Apple Root CA - G3, DER or PEM)',
    );
  }
  const appleRoots = values.APPLE_ROOT_CERTIFICATES
    ? readRootCertificates(values.APPLE_ROOT_CERTIFICATES)
    : [];
  if (typeof appleRoots === 'string') problems.push(appleRoots);
  if (!isProduction && values.APPLE_BUNDLE_ID && !values.APPLE_ROOT_CERTIFICATES) {
    problems.push(
      'APPLE_ROOT_CERTIFICATES: required with APPLE_BUNDLE_ID (without roots no payload verifies; unset APPLE_BUNDLE_ID for the App Store sandbox)',
    );
  }
  if (values.APPLE_ROOT_CERTIFICATES && !values.APPLE_BUNDLE_ID) {
    problems.push('APPLE_BUNDLE_ID: required with APPLE_ROOT_CERTIFICATES (payloads name the app)');
  }
  const serverApiKey = readServerApiKey(values, problems);
  if (isProduction && values.TRUST_PROXY === true) {
    problems.push(
      'TRUST_PROXY: true trusts every X-Forwarded-For hop, so a client picks its own address; give the number of proxies (e.g. 1) or their addresses',
    );
  }
  if (isProduction && values.TOKEN_SECRET && estimatedEntropyBits(values.TOKEN_SECRET) < 128) {
    // Whoever guesses it can sign tokens for any account.
    problems.push(
      'TOKEN_SECRET: too predictable: use at least 128 random bits, e.g. openssl rand -base64 48',
    );
  }
  if (isProduction && !values.PUBLIC_URL) {
    problems.push('PUBLIC_URL: required in production (links in emails are built from it)');
  } else if (isProduction && !values.PUBLIC_URL?.startsWith('https://')) {
    problems.push(
      'PUBLIC_URL: must be https in production (tokens and emailed codes would travel in clear)',
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const dataDir = path.resolve(values.DATA_DIR);
  let generatedSecrets: GeneratedSecrets | undefined;
  const generated = (): GeneratedSecrets =>
    (generatedSecrets ??= readOrCreateGeneratedSecrets(dataDir));
  const database: DatabaseConfig = values.DATABASE_URL
    ? { kind: 'postgres', url: values.DATABASE_URL }
    : { kind: 'pglite', dataDir: path.join(dataDir, 'pglite') };
  // The development clock (POST /dev/clock) is never in production: no schema, no search_path.
  if (values.NODE_ENV !== 'production') database.devClock = true;

  return {
    environment: values.NODE_ENV,
    host: values.HOST,
    port: values.PORT,
    publicUrl: (values.PUBLIC_URL ?? `http://localhost:${values.PORT}`).replace(/\/+$/, ''),
    dataDir,
    database,
    tokenSecret: values.TOKEN_SECRET ?? generated().tokenSecret,
    logLevel: values.LOG_LEVEL,
    mail: {
      smtpUrl: values.SMTP_URL,
      from: values.MAIL_FROM,
      // Unset: TLS always, except a mail catcher on this machine (Mailpit, MailHog) in development.
      requireTls: !(
        values.SMTP_ALLOW_INSECURE ??
        (!isProduction && isLoopbackUrl(values.SMTP_URL))
      ),
    },
    redisUrl: values.REDIS_URL,
    redisKeyPrefix: values.REDIS_KEY_PREFIX,
    authRequestsPerMinute: values.AUTH_REQUESTS_PER_MINUTE,
    authAttemptsPerAddressPerHour: values.AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR,
    signInPageRequestsPerMinute: values.SIGN_IN_PAGE_REQUESTS_PER_MINUTE,
    registrationsPerAddressPerHour: values.REGISTRATIONS_PER_ADDRESS_PER_HOUR,
    checkoutsPerAddressPerHour: values.CHECKOUTS_PER_ADDRESS_PER_HOUR,
    checkoutsPerEmailPerHour: values.CHECKOUTS_PER_EMAIL_PER_HOUR,
    checkoutLookupsPerAddressPerHour: values.CHECKOUT_LOOKUPS_PER_ADDRESS_PER_HOUR,
    supportEmail: values.SUPPORT_EMAIL,
    trustProxy: values.TRUST_PROXY,
    google: values.GOOGLE_CLIENT_ID
      ? {
          clientId: values.GOOGLE_CLIENT_ID,
          clientSecret: values.GOOGLE_CLIENT_SECRET ?? '',
          issuer: values.GOOGLE_ISSUER.replace(/\/+$/, ''),
        }
      : isProduction
        ? 'off'
        : 'sandbox',
    apple: values.APPLE_CLIENT_ID
      ? {
          clientId: values.APPLE_CLIENT_ID,
          // Compared exactly with the token's iss, which has no trailing slash.
          issuer: values.APPLE_ISSUER.replace(/\/+$/, ''),
          jwksUrl: values.APPLE_JWKS_URL,
        }
      : isProduction
        ? 'off'
        : 'sandbox',
    appStore: values.APPLE_BUNDLE_ID
      ? {
          bundleId: values.APPLE_BUNDLE_ID,
          appAppleId: values.APPLE_APP_APPLE_ID,
          refuseSandbox: values.APPLE_REFUSE_SANDBOX === 'true',
          rootCertificates: typeof appleRoots === 'string' ? [] : appleRoots,
          serverApi: serverApiKey,
        }
      : isProduction
        ? 'off'
        : 'sandbox',
    appleRefundPreference: values.APPLE_REFUND_PREFERENCE,
    stripe: {
      secretKey: values.STRIPE_SECRET_KEY,
      apiUrl: values.STRIPE_API_URL?.replace(/\/+$/, ''),
      webhookSecret: values.STRIPE_WEBHOOK_SECRET ?? generated().stripeWebhookSecret,
    },
    pwnedPasswords:
      (values.PWNED_PASSWORDS ?? (isProduction ? 'on' : 'off')) === 'on'
        ? { url: values.PWNED_PASSWORDS_URL.replace(/\/+$/, '') }
        : 'off',
    metricsToken: values.METRICS_TOKEN,
    shutdownDrainSeconds: values.SHUTDOWN_DRAIN_SECONDS,
  };
}

/** Whether a URL's host is this machine (localhost, 127.0.0.0/8, ::1). */
function isLoopbackUrl(url: string | undefined): boolean {
  if (!url) return false;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** Names proxy-addr (Fastify's) understands for well-known ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY's value, or undefined when it is not one: true/false, a whole number of hops (0 is
 * false), or addresses, CIDRs and proxy-addr's range names separated by commas.
 */
function parseTrustProxy(raw: string): boolean | number | string[] | undefined {
  const value = raw.trim();
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  if (/^\d+$/.test(value)) return Number(value) === 0 ? false : Number(value);
  const entries = value.split(',').map((entry) => entry.trim());
  return entries.every(isProxyAddress) ? entries : undefined;
}

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/**
 * A cautious guess at how many bits of randomness a secret holds: its characters' Shannon entropy
 * times its length, counted over the shortest block the secret repeats (`changeme` six times
 * holds no more than `changeme` once). It overrates clever patterns but never a repeated letter,
 * a repeated word or a short alphabet, which is what a placeholder secret looks like. A random
 * base64 or 64-digit hex secret scores far above 128 bits.
 */
export function estimatedEntropyBits(secret: string): number {
  const characters = [...secret];
  const repeatsEvery = (period: number) =>
    characters.every(
      (character, index) => index < period || character === characters[index - period],
    );
  let period = 1;
  while (period < characters.length && !repeatsEvery(period)) period += 1;
  const block = characters.slice(0, period);
  const counts = new Map<string, number>();
  for (const character of block) counts.set(character, (counts.get(character) ?? 0) + 1);
  let bitsPerCharacter = 0;
  for (const count of counts.values()) {
    const share = count / block.length;
    bitsPerCharacter -= share * Math.log2(share);
  }
  return bitsPerCharacter * block.length;
}

interface GeneratedSecrets {
  tokenSecret: string;
  stripeWebhookSecret: string;
}

const SECRET_GENERATORS: { [Name in keyof GeneratedSecrets]: () => string } = {
  tokenSecret: () => randomBytes(48).toString('base64url'),
  // Shaped like Stripe's, for the local payment sandbox that signs webhooks with it.
  stripeWebhookSecret: () => `whsec_${randomBytes(24).toString('base64url')}`,
};

/**
 * Development convenience: secrets that nobody configured are generated once and kept in
 * DATA_DIR, so tokens stay valid across restarts. Refused in production (see loadConfig).
 */
function readOrCreateGeneratedSecrets(dataDir: string): GeneratedSecrets {
  const file = path.join(dataDir, 'generated-secrets.json');
  mkdirSync(dataDir, { recursive: true });
  let stored: Partial<GeneratedSecrets> | undefined;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<GeneratedSecrets>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ConfigError([`DATA_DIR: cannot read ${file}: ${(error as Error).message}`]);
    }
  }
  const names = Object.keys(SECRET_GENERATORS) as Array<keyof GeneratedSecrets>;
  if (stored && names.every((name) => typeof stored[name] === 'string')) {
    return stored as GeneratedSecrets;
  }
  const secrets = Object.fromEntries(
    names.map((name) => [name, stored?.[name] ?? SECRET_GENERATORS[name]()]),
  ) as unknown as GeneratedSecrets;
  const content = JSON.stringify(secrets, null, 2);
  try {
    if (stored) {
      // Adding a secret to an older file: written whole and renamed, never seen half written.
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, content, { mode: 0o600 });
      renameSync(temporary, file);
    } else {
      // 'wx' fails if another process created it first; then theirs is the one to use.
      writeFileSync(file, content, { flag: 'wx', mode: 0o600 });
    }
    return secrets;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      return readOrCreateGeneratedSecrets(dataDir);
    throw new ConfigError([`DATA_DIR: cannot write ${file}: ${(error as Error).message}`]);
  }
}

/** Hides the password of a database URL so it can be printed. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

const SERVER_API_KEY_VARIABLES = [
  'APPLE_ISSUER_ID',
  'APPLE_KEY_ID',
  'APPLE_PRIVATE_KEY_PATH',
] as const;

/**
 * The App Store Server API key, when its three variables are set and the key file holds what
 * App Store Connect gives (an EC P-256 private key in PKCS#8 PEM); each problem is pushed.
 */
function readServerApiKey(
  values: z.infer<typeof EnvSchema>,
  problems: string[],
): AppStoreServerApiKey | undefined {
  const given = SERVER_API_KEY_VARIABLES.filter((name) => values[name] !== undefined);
  if (given.length === 0) {
    if (values.APPLE_API_BASE_URL) {
      problems.push(
        'APPLE_API_BASE_URL: needs APPLE_ISSUER_ID, APPLE_KEY_ID and APPLE_PRIVATE_KEY_PATH (the calls it would receive are signed with that key)',
      );
    }
    return undefined;
  }
  const missing = SERVER_API_KEY_VARIABLES.filter((name) => values[name] === undefined);
  for (const name of missing) {
    problems.push(
      `${name}: required with ${given.join(' and ')} (the App Store Server API key is the issuer id, the key id and the .p8 key file together)`,
    );
  }
  const { APPLE_ISSUER_ID: issuerId, APPLE_KEY_ID: keyId } = values;
  const file = values.APPLE_PRIVATE_KEY_PATH;
  if (!issuerId || !keyId || !file) return undefined;
  if (!values.APPLE_BUNDLE_ID) {
    problems.push(
      'APPLE_BUNDLE_ID: required with APPLE_ISSUER_ID (each App Store Server API call names the app; unset the key for the App Store sandbox)',
    );
  }
  let privateKey: string;
  try {
    privateKey = readFileSync(file, 'utf8');
  } catch (error) {
    problems.push(`APPLE_PRIVATE_KEY_PATH: cannot read ${file}: ${(error as Error).message}`);
    return undefined;
  }
  if (!isP256Pkcs8PrivateKey(privateKey)) {
    problems.push(
      `APPLE_PRIVATE_KEY_PATH: ${file} is not an EC P-256 private key in PKCS#8 PEM (the .p8 file App Store Connect gives)`,
    );
    return undefined;
  }
  return {
    issuerId,
    keyId,
    privateKey,
    baseUrl: values.APPLE_API_BASE_URL?.replace(/\/+$/, ''),
  };
}

/** Whether a PEM text is what the library signs ES256 tokens with: PKCS#8, EC on P-256. */
function isP256Pkcs8PrivateKey(pem: string): boolean {
  // PKCS#8's label; SEC1 ("EC PRIVATE KEY") would parse too, but is not what Apple hands out.
  if (!/^\s*-----BEGIN PRIVATE KEY-----/.test(pem)) return false;
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' });
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  } catch {
    return false;
  }
}

/**
 * The root certificates of APPLE_ROOT_CERTIFICATES (comma-separated paths, DER or PEM) as DER,
 * or the one-line problem.
 */
function readRootCertificates(paths: string): Buffer[] | string {
  const certificates: Buffer[] = [];
  for (const file of paths
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    let content: Buffer;
    try {
      content = readFileSync(file);
    } catch (error) {
      return `APPLE_ROOT_CERTIFICATES: cannot read ${file}: ${(error as Error).message}`;
    }
    const pem = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/.exec(
      content.toString('latin1'),
    );
    const der = pem?.[1] ? Buffer.from(pem[1].replace(/\s+/g, ''), 'base64') : content;
    try {
      new X509Certificate(der);
    } catch {
      return `APPLE_ROOT_CERTIFICATES: ${file} is not a certificate (DER or PEM)`;
    }
    certificates.push(der);
  }
  return certificates;
}
