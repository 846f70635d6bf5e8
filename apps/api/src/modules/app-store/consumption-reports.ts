// Apple's refund requests answered with the member's consent (ADR 023). A CONSUMPTION_REQUEST
// for a consenting member leaves one report owed (service.ts); this job sends it with the App
// Store Server API's Send Consumption Information (V2). Every process runs it: each report is
// taken by one process at a time under a lease (consumption-repo.ts). Consent is asked again
// right before sending, since the member may have withdrawn it meanwhile. A failure is retried
// after 1 minute, then 2, 4 … until 12 hours after Apple signed the request, then given up.
// What is sent: consumption-request.ts.
import type { Kysely, Transaction } from 'kysely';

import type { AppleRefundPreference } from '../../config';
import type { Database } from '../../db/schema';
import type { AppStoreServerApi } from '../../plugins/app-store';
import { loadAppStoreLibrary } from '../../security/app-store-library';
import type { AppStoreEnvironment } from '../../security/app-store-verifier';
import { usersRepo } from '../users';
import * as repo from './consumption-repo';
import { consumptionRequestOf, factsOf } from './consumption-request';

const MINUTE_MS = 60 * 1000;
/** Longer than one call may take (15 s) with room to spare: a stopped process's reports return. */
const LEASE_SECONDS = 5 * 60;
const BATCH = 20;
/** Apple asks for an answer within 12 hours of its request. */
const ANSWER_WITHIN_MS = 12 * 60 * MINUTE_MS;

/**
 * In the notification's transaction: an answer is owed to Apple's refund request if the member
 * consents now (true when this request was not owed before).
 */
export async function oweConsumptionAnswer(
  transaction: Transaction<Database>,
  request: Omit<repo.ConsumptionReportRow, 'attempts' | 'requestedAt' | 'giveUpAt'> & {
    signedAt: number;
  },
): Promise<boolean> {
  const { signedAt, ...report } = request;
  const consent = (await usersRepo.readPreferences(transaction, report.userId))
    ?.appleConsumptionConsent;
  if (!consent) return false;
  return repo.enqueueConsumptionReport(transaction, {
    ...report,
    requestedAt: new Date(signedAt),
    giveUpAt: new Date(signedAt + ANSWER_WITHIN_MS),
    nextAttemptAt: new Date(signedAt),
  });
}

export interface ConsumptionReportsOptions {
  db: Kysely<Database>;
  serverApi: AppStoreServerApi | null;
  refundPreference: AppleRefundPreference;
  log: {
    info(details: object, message: string): void;
    error(details: object, message: string): void;
  };
  /** The time the job sees (a dev clock moves it); now by default. */
  now?: () => Date;
  /** How often: every minute. */
  intervalMs?: number;
}

export type ConsumptionReports = ReturnType<typeof createConsumptionReports>;

export function createConsumptionReports(options: ConsumptionReportsOptions) {
  const now = options.now ?? (() => new Date());
  const intervalMs = options.intervalMs ?? MINUTE_MS;
  const { db, log } = options;
  let timer: NodeJS.Timeout | undefined;

  /** Handles every report due now; how many it took. */
  async function runDueOnce(): Promise<number> {
    const api = options.serverApi;
    if (!api) return 0;
    let handled = 0;
    for (;;) {
      const due = await repo.claimDueConsumptionReports(db, {
        now: now(),
        leaseSeconds: LEASE_SECONDS,
        limit: BATCH,
      });
      for (const report of due) await answerReport({ ...options, api }, report, now());
      handled += due.length;
      if (due.length < BATCH) return handled;
    }
  }

  function schedule(delayMs: number): void {
    timer = setTimeout(() => {
      runDueOnce()
        .catch((error: unknown) => {
          log.error({ err: error }, 'app store: consumption reports not run; next run later');
        })
        .finally(() => {
          if (timer) schedule(intervalMs);
        });
    }, delayMs);
    // A pending run never keeps the process alive.
    timer.unref();
  }

  return {
    runDueOnce,
    start(): void {
      if (options.serverApi) schedule(intervalMs);
    },
    stop(): void {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** One report: given up, dropped for want of consent, sent, or put back for later. */
async function answerReport(
  context: Pick<ConsumptionReportsOptions, 'db' | 'log' | 'refundPreference'> & {
    api: AppStoreServerApi;
  },
  report: repo.ConsumptionReportRow,
  at: Date,
): Promise<void> {
  const { db, log, api } = context;
  const close = (outcome: string, sentRequest?: string) =>
    repo.closeConsumptionReport(db, {
      notificationUuid: report.notificationUuid,
      outcome,
      at,
      ...(sentRequest === undefined ? {} : { sentRequest }),
    });
  const about = {
    notificationUuid: report.notificationUuid,
    transactionId: report.transactionId,
  };
  if (at >= report.giveUpAt) {
    log.error(
      { ...about, attempts: report.attempts - 1 },
      'app store: refund request not answered, given up',
    );
    return close('given-up');
  }
  const consent = (await usersRepo.readPreferences(db, report.userId))?.appleConsumptionConsent;
  if (!consent) {
    log.info(about, 'app store: refund request not answered: the member withdrew his consent');
    return close('consent-withdrawn');
  }
  const facts = await factsOf(db, report, at);
  const request = consumptionRequestOf(
    facts,
    context.refundPreference,
    await loadAppStoreLibrary(),
  );
  try {
    await api.sendConsumptionInformation(
      report.environment as AppStoreEnvironment,
      report.transactionId,
      request,
    );
  } catch (error) {
    const retryAt = new Date(
      Math.min(at.getTime() + MINUTE_MS * 2 ** (report.attempts - 1), report.giveUpAt.getTime()),
    );
    log.error(
      { ...about, err: error, attempt: report.attempts, retryAt },
      'app store: consumption information not sent; tried again later',
    );
    return repo.recordConsumptionFailure(db, {
      notificationUuid: report.notificationUuid,
      error: error instanceof Error ? error.message : String(error),
      nextAttemptAt: retryAt,
    });
  }
  log.info(
    { ...about, reason: report.reason, request, facts },
    'app store: consumption information sent; Apple accepted it (202)',
  );
  await close('sent', JSON.stringify({ request, facts }));
}
