// The jobs that run beside the requests, in every process: pruning ended sessions, retrying
// Stripe customer deletions, reading back App Store notifications Apple could not deliver,
// answering Apple's refund requests, and the mail before premium ends. Each starts with the
// server, stops when it closes, and (outside production) runs at once when the development clock
// moves (plugins/dev-clock.ts), so that what came due is done as it would be by then.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import type { Config } from '../config';
import type { PasswordHasher } from '../security/password-hasher';
import { createCustomerDeletionRetries } from './account-deletion/customer-deletion-retries';
import type { StripeCustomerCleanUp } from './account-deletion/stripe-customers';
import { createConsumptionReports } from './app-store/consumption-reports';
import { createNotificationRecovery } from './app-store/notification-recovery';
import { createAppStoreService } from './app-store/service';
import { createSessionPruning } from './auth/session-pruning';
import { createPremiumReminders } from './premium-reminders';

type Api = Parameters<FastifyPluginAsyncZod>[0];

/** What a job offers its runner: start, stop, and one run now. */
interface BackgroundJob {
  start(): void;
  stop(): void;
  runNow(): Promise<unknown>;
}

function runBeside(api: Api, job: BackgroundJob): void {
  job.start();
  api.devClock?.onMoved(async () => {
    await job.runNow();
  });
  api.addHook('onClose', async () => job.stop());
}

/** Starts every job; `ownHasher`, when given, is closed with them. */
export function startBackgroundJobs(
  api: Api,
  config: Config,
  stripeCustomers: StripeCustomerCleanUp,
  ownHasher: PasswordHasher | undefined,
): void {
  const { db } = api.database;
  const log = api.log;
  const sessionPruning = createSessionPruning({ db, log });
  runBeside(api, { ...sessionPruning, runNow: sessionPruning.pruneOnce });
  const retryDue = () => stripeCustomers.retryCustomerDeletions();
  runBeside(api, { ...createCustomerDeletionRetries({ retryDue, log }), runNow: retryDue });
  const notificationRecovery = createNotificationRecovery({
    db,
    serverApi: api.appStoreServerApi,
    receiveNotification: createAppStoreService({
      db,
      verifier: api.appStore,
      answersConsumptionRequests: api.appStoreServerApi !== null,
    }).receiveNotification,
    log,
  });
  runBeside(api, { ...notificationRecovery, runNow: () => notificationRecovery.runOnce() });
  const consumptionReports = createConsumptionReports({
    db,
    serverApi: api.appStoreServerApi,
    refundPreference: config.appleRefundPreference,
    log,
  });
  runBeside(api, { ...consumptionReports, runNow: () => consumptionReports.runDueOnce() });
  const premiumReminders = createPremiumReminders({
    db,
    mail: api.mail,
    publicUrl: config.publicUrl,
    supportEmail: config.supportEmail,
    tokenSecret: config.tokenSecret,
    log,
  });
  runBeside(api, { ...premiumReminders, runNow: () => premiumReminders.runOnce() });
  if (ownHasher) api.addHook('onClose', async () => ownHasher.close());
}
