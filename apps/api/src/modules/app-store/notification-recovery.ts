// No App Store notification is lost: Apple gives up on a notification after a few days of
// retries, and a notification this server answered with an error, or never saw, would leave a
// renewal or a refund unapplied. Every hour one process (under a lease: ADR 022) reads Apple's
// Get Notification History for the time since it last read it and hands every notification to
// the path a delivered one takes (`receiveNotification`: the same verification, and 'duplicate'
// for one applied already, by its notificationUUID), oldest first.
//
// Where it is in each history is kept in app_store_history_cursors after every page: the time it
// read through and, mid-walk, the window and the next page's token, so a run that fails or stops
// resumes on the page after the last one applied. Apple takes a page's token only with the body
// of the walk's first page, so the window is kept with it; a token Apple no longer takes starts
// the window again (the duplicates that brings cost a verification each).
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import { createJobLease, createPeriodicJob, type JobLease } from '../../jobs';
import type { AppStoreServerApi, NotificationHistorySource } from '../../plugins/app-store';
import { AppError } from '../../errors';
import * as cursorRepo from './history-cursor-repo';
import { NotificationHistoryTokenRefused } from './server-api';

const MINUTE_MS = 60 * 1000;
const DAY_MS = 24 * 60 * MINUTE_MS;
export const NOTIFICATION_RECOVERY_JOB = 'app-store-notification-recovery';
/** Each window starts this long before the last one ended: a record Apple adds late is read. */
const OVERLAP_MS = 10 * MINUTE_MS;
/** Kept off the start of Apple's keeping: a window at the very edge would be refused. */
const KEEPING_MARGIN_MS = 60 * MINUTE_MS;
/** Renewed after every page: far longer than a page of 20 notifications takes. */
const LEASE_MS = 5 * MINUTE_MS;

export interface NotificationRecoveryOptions {
  db: Kysely<Database>;
  /** Null when this server has no App Store Server API key: the job is off. */
  serverApi: AppStoreServerApi | null;
  /** The path every delivered notification takes (the app-store service's). */
  receiveNotification: (signedPayload: string) => Promise<'applied' | 'duplicate' | 'kept'>;
  log: {
    info(details: object, message: string): void;
    warn(details: object, message: string): void;
    error(details: object, message: string): void;
  };
  /** Every hour, the first run five minutes after start. */
  intervalMs?: number;
  /** Tests run two holders in one process. */
  holder?: string;
  /** The server's clock (a development clock may move it forward). */
  now?: () => number;
}

/** What one run did: `ran` false when another process holds the job (or it is off). */
export interface RecoveryRun {
  ran: boolean;
  /** Applied now (or kept for a subscription bound to nobody yet): missed until this run. */
  recovered: number;
  alreadyApplied: number;
  /** Not verified: logged and passed over, as a delivery of it would be refused. */
  refused: number;
}

type Tally = Omit<RecoveryRun, 'ran'>;

/** The signedDate a notification claims, to order a page (verification comes after). */
function signedDateOf(signedPayload: string): number {
  try {
    const claims = JSON.parse(
      Buffer.from(signedPayload.split('.')[1] ?? '', 'base64url').toString('utf8'),
    ) as { signedDate?: unknown };
    return typeof claims.signedDate === 'number' ? claims.signedDate : Number.MAX_SAFE_INTEGER;
  } catch {
    return Number.MAX_SAFE_INTEGER;
  }
}

/** What one run works with: the options, this holder's lease and the clock. */
interface Run {
  options: NotificationRecoveryOptions;
  serverApi: AppStoreServerApi;
  lease: JobLease;
  now: () => number;
  tally: Tally;
}

/** Hands each notification, oldest first, to the delivered path. */
async function applyInSignedOrder(run: Run, signedPayloads: string[]): Promise<void> {
  const ordered = [...signedPayloads].sort((a, b) => signedDateOf(a) - signedDateOf(b));
  for (const signedPayload of ordered) {
    try {
      const outcome = await run.options.receiveNotification(signedPayload);
      if (outcome === 'duplicate') run.tally.alreadyApplied += 1;
      else run.tally.recovered += 1;
    } catch (error) {
      // Refused as a delivery would be (not Apple's signature): nothing to apply, ever.
      if (!(error instanceof AppError && error.statusCode === 400)) throw error;
      run.tally.refused += 1;
      run.options.log.warn({ err: error }, 'app-store: a notification of the history was refused');
    }
  }
}

/** The window to read: the walk under way, or from where the last one ended until now. */
async function windowOf(run: Run, source: NotificationHistorySource) {
  const cursor = await cursorRepo.findHistoryCursor(run.options.db, source.name);
  const end = run.now();
  const kept = end - source.keptDays * DAY_MS;
  const readUntil = cursor?.readUntil ?? null;
  const { windowStart, windowEnd, paginationToken } = cursor ?? {};
  // A walk that starts before what Apple keeps is refused: a new one starts inside it (a new
  // walk starts KEEPING_MARGIN_MS inside, so one interrupted resumes for that long).
  if (windowStart && windowEnd && paginationToken && windowStart.getTime() > kept)
    return { readUntil, start: windowStart.getTime(), end: windowEnd.getTime(), paginationToken };
  const start = Math.max(kept + KEEPING_MARGIN_MS, (readUntil?.getTime() ?? 0) - OVERLAP_MS);
  return { readUntil, start, end, paginationToken: undefined };
}

/** One page of the window, from the first again when Apple no longer takes the token. */
async function pageOf(
  run: Run,
  source: NotificationHistorySource,
  window: { start: number; end: number },
  paginationToken: string | undefined,
) {
  const request = { history: source.name, startDate: window.start, endDate: window.end };
  try {
    return await run.serverApi.getNotificationHistory({ ...request, paginationToken });
  } catch (error) {
    if (!(error instanceof NotificationHistoryTokenRefused)) throw error;
    run.options.log.warn(
      { history: source.name },
      'app-store: history token refused; reading again',
    );
    return run.serverApi.getNotificationHistory(request);
  }
}

/** Reads one history through, page by page, the cursor saved after each. */
async function readHistory(run: Run, source: NotificationHistorySource): Promise<void> {
  const window = await windowOf(run, source);
  let paginationToken = window.paginationToken;
  for (;;) {
    const page = await pageOf(run, source, window, paginationToken);
    await applyInSignedOrder(run, page.signedPayloads);
    const done = !page.hasMore || !page.paginationToken;
    paginationToken = page.paginationToken;
    await cursorRepo.saveHistoryCursor(run.options.db, {
      source: source.name,
      readUntil: done ? new Date(window.end) : window.readUntil,
      windowStart: done ? null : new Date(window.start),
      windowEnd: done ? null : new Date(window.end),
      paginationToken: done ? null : (paginationToken ?? null),
    });
    if (done) return;
    if (!(await run.lease.renew())) throw new Error('the notification recovery lease was lost');
  }
}

/** Every history read through, under the lease; `ran` false when another process holds it. */
async function recoverOnce(run: Omit<Run, 'tally'>): Promise<RecoveryRun> {
  const tally: Tally = { recovered: 0, alreadyApplied: 0, refused: 0 };
  if (!(await run.lease.take())) return { ran: false, ...tally };
  const failures: unknown[] = [];
  try {
    // One history failing (Apple's Sandbox host down) does not keep the other from being read.
    for (const source of run.serverApi.notificationHistories)
      await readHistory({ ...run, tally }, source).catch((error: unknown) => failures.push(error));
  } finally {
    await run.lease.release();
    if (tally.recovered + tally.alreadyApplied + tally.refused > 0)
      run.options.log.info(tally, `app-store: ${tally.recovered} missed notifications recovered`);
  }
  if (failures.length > 0) throw failures[0];
  return { ran: true, ...tally };
}

export type NotificationRecovery = ReturnType<typeof createNotificationRecovery>;

/** The hourly job; `runOnce` for tests and a development clock. */
export function createNotificationRecovery(options: NotificationRecoveryOptions) {
  const { serverApi, log } = options;
  const lease = createJobLease(options.db, {
    jobName: NOTIFICATION_RECOVERY_JOB,
    durationMs: LEASE_MS,
    ...(options.holder ? { holder: options.holder } : {}),
  });
  const now = options.now ?? Date.now;
  const job = createPeriodicJob<RecoveryRun>({
    name: 'app-store notification recovery',
    intervalMs: options.intervalMs ?? 60 * MINUTE_MS,
    // Nothing is urgent at start (Apple's own first retry comes an hour after a failure).
    firstDelayMs: 5 * MINUTE_MS,
    run: () =>
      serverApi
        ? recoverOnce({ options, serverApi, lease, now })
        : Promise.resolve({ ran: false, recovered: 0, alreadyApplied: 0, refused: 0 }),
    log,
  });
  return {
    runOnce: job.runOnce,
    start(): void {
      // Off without a key: the App Store plugin's start line says so, for every call of the API.
      if (!serverApi) return;
      job.start();
    },
    stop: job.stop,
  };
}
