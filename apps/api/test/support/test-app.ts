import { type SmtpInbox, startSmtpInbox, type CapturedEmail } from '@kegel/sandbox/smtp-inbox';
import type { FastifyInstance } from 'fastify';

import { buildApp, type BuildAppOptions } from '../../src/app';
import { loadConfig } from '../../src/config';
import type { TestDatabase, TestDatabaseKind } from './test-databases';

/** A fixed secret, so tests never write generated secrets and runs are reproducible. */
export const TEST_TOKEN_SECRET = 'test-token-secret-that-is-long-enough-0123456789';
export const TEST_PUBLIC_URL = 'https://kegel.test';
export const TEST_STRIPE_WEBHOOK_SECRET = 'whsec_test_secret_for_the_integration_tests';

/**
 * Every test calls from the same address or two, so the per-address budgets are lifted; the
 * tests of the budgets set their own, or ask for the shipped ones (`shippedLimits`).
 */
const LIFTED_LIMITS = {
  AUTH_REQUESTS_PER_MINUTE: '100000',
  AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR: '100000',
  SIGN_IN_PAGE_REQUESTS_PER_MINUTE: '100000',
  REGISTRATIONS_PER_ADDRESS_PER_HOUR: '100000',
};

export interface TestAppOptions {
  /** Environment on top of the test defaults. */
  env?: Record<string, string>;
  /** The rate budgets a deployment gets by default, instead of the lifted ones. */
  shippedLimits?: boolean;
}

export function testConfig(
  database: TestDatabase,
  env: Record<string, string> = {},
  { shippedLimits = false }: Pick<TestAppOptions, 'shippedLimits'> = {},
) {
  return loadConfig({
    NODE_ENV: 'test',
    TOKEN_SECRET: TEST_TOKEN_SECRET,
    PUBLIC_URL: TEST_PUBLIC_URL,
    STRIPE_WEBHOOK_SECRET: TEST_STRIPE_WEBHOOK_SECRET,
    ...(shippedLimits ? {} : LIFTED_LIMITS),
    ...database.env,
    ...env,
  });
}

/** Fast outbox, unless a test asks otherwise. */
const TEST_APP_OPTIONS: BuildAppOptions = {
  logger: false,
  webRoot: '/nonexistent-web-root',
  mail: { pollIntervalMs: 50, retryBaseMs: 100 },
};

/** The whole server, built as main.ts builds it but not listening: drive it with `inject`. */
export async function buildTestApp(
  database: TestDatabase,
  options: BuildAppOptions & TestAppOptions = {},
): Promise<FastifyInstance> {
  const { env, shippedLimits, ...appOptions } = options;
  const app = await buildApp(testConfig(database, env, { shippedLimits }), {
    ...TEST_APP_OPTIONS,
    ...appOptions,
  });
  await app.ready();
  return app;
}

export interface TestServer {
  app: FastifyInstance;
  inbox: SmtpInbox;
  database: TestDatabase;
  close(): Promise<void>;
}

/** A fresh database, a real SMTP capture and the server sending its mail there. */
export async function startTestServer(
  kind: TestDatabaseKind,
  options: BuildAppOptions & TestAppOptions = {},
): Promise<TestServer> {
  const database = await kind.create();
  const inbox = await startSmtpInbox();
  const app = await buildTestApp(database, {
    ...options,
    env: { SMTP_URL: inbox.url, ...options.env },
  });
  return {
    app,
    inbox,
    database,
    async close() {
      await app.close();
      await inbox.close();
      await database.drop();
    },
  };
}

/** The first link in an email's text that starts with the public URL. */
export function linkIn(email: CapturedEmail): URL {
  const match = new RegExp(`${TEST_PUBLIC_URL.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\S+`).exec(
    email.text,
  );
  if (!match) throw new Error(`no link in email "${email.subject}":\n${email.text}`);
  return new URL(match[0]);
}

let counter = 0;
/** A unique address per call, so tests in one database never collide. */
export function uniqueEmail(label = 'user'): string {
  counter += 1;
  return `${label}.${Date.now().toString(36)}${counter}@example.com`;
}
