// Sessions and their refresh tokens are kept 30 days after they end (revoked or expired), then
// deleted by the server itself; sign-in events (the sign-in history) are kept 90 days. Every process runs the job; a transaction-scoped advisory lock
// lets one at a time do the work, and a DELETE run twice deletes nothing twice anyway.
import { type Kysely, sql } from 'kysely';

import type { Database } from '../../db/schema';
import * as sessionRepo from './session-repo';
import { SIGN_IN_EVENTS_KEEP_DAYS } from './sign-in-history';
import * as signInEventRepo from './sign-in-event-repo';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Any constant shared by every process of this product; it only has to be stable. */
const PRUNING_LOCK_KEY = 7_246_530_002;

export interface SessionPruningOptions {
  db: Kysely<Database>;
  log: {
    info(details: object, message: string): void;
    error(details: object, message: string): void;
  };
  /** How long an ended session is kept: 30 days. */
  keepMs?: number;
  /** How often the job runs: every 6 hours, and once a minute after start. */
  intervalMs?: number;
}

export function createSessionPruning(options: SessionPruningOptions) {
  const keepMs = options.keepMs ?? 30 * DAY_MS;
  const intervalMs = options.intervalMs ?? 6 * 60 * 60 * 1000;
  let timer: NodeJS.Timeout | undefined;

  /**
   * Deletes the sessions that ended before the keeping time and the sign-in events past theirs;
   * the number of rows deleted (0 when another process is at it).
   */
  async function pruneOnce(): Promise<number> {
    return options.db.transaction().execute(async (transaction) => {
      const { rows } = await sql<{ locked: boolean }>`
        select pg_try_advisory_xact_lock(${PRUNING_LOCK_KEY}) as locked`.execute(transaction);
      if (!rows[0]?.locked) return 0;
      const sessions = await sessionRepo.deleteEndedSessions(
        transaction,
        new Date(Date.now() - keepMs),
      );
      const events = await signInEventRepo.deleteSignInEventsBefore(
        transaction,
        new Date(Date.now() - SIGN_IN_EVENTS_KEEP_DAYS * DAY_MS),
      );
      return sessions + events;
    });
  }

  function schedule(delayMs: number): void {
    timer = setTimeout(() => {
      pruneOnce()
        .then((deleted) => {
          if (deleted > 0)
            options.log.info({ deleted }, 'sessions: old sessions and sign-ins deleted');
        })
        .catch((error: unknown) => {
          options.log.error({ err: error }, 'sessions: pruning failed; next run later');
        })
        .finally(() => {
          if (timer) schedule(intervalMs);
        });
    }, delayMs);
    // A pending run never keeps the process alive.
    timer.unref();
  }

  return {
    pruneOnce,
    start(): void {
      schedule(60_000);
    },
    stop(): void {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
