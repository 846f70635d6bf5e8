// Sessions and their refresh tokens are kept 30 days after they end (revoked or expired), then
// deleted by the server itself; sign-in events (the sign-in history) are kept 90 days. Every
// process runs the job; a session-level advisory lock lets one at a time do the work, and a
// DELETE run twice deletes nothing twice anyway.
//
// It deletes in batches of `batchSize` rows, each its own statement and so its own transaction:
// on a table of millions a single DELETE of everything due would hold its row locks (and keep
// the member whose old session it is waiting, should he sign out everywhere or delete his
// account) for as long as the whole deletion takes. A batch of 500 sessions with their
// refresh tokens takes about 20 ms among ten million (docs/benchmarks/scale.md).
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
  /** The most rows one statement deletes: 500. */
  batchSize?: number;
}

export function createSessionPruning(options: SessionPruningOptions) {
  const keepMs = options.keepMs ?? 30 * DAY_MS;
  const intervalMs = options.intervalMs ?? 6 * 60 * 60 * 1000;
  const batchSize = options.batchSize ?? 500;
  let timer: NodeJS.Timeout | undefined;

  /**
   * Deletes the sessions that ended before the keeping time and the sign-in events past theirs,
   * batch after batch until one comes back short; the number of rows deleted (0 when another
   * process is at it). Logs what it deleted, in how many batches, and the longest batch.
   */
  async function pruneOnce(): Promise<number> {
    return options.db.connection().execute(async (connection) => {
      const { rows } = await sql<{ locked: boolean }>`
        select pg_try_advisory_lock(${PRUNING_LOCK_KEY}) as locked`.execute(connection);
      if (!rows[0]?.locked) return 0;
      try {
        let batches = 0;
        let longestBatchMs = 0;
        /** Runs one kind of batch until it deletes fewer than a batch; the rows deleted. */
        const inBatches = async (deleteBatch: () => Promise<number>) => {
          let deleted = 0;
          for (;;) {
            const started = performance.now();
            const count = await deleteBatch();
            longestBatchMs = Math.max(longestBatchMs, performance.now() - started);
            batches += 1;
            deleted += count;
            if (count < batchSize) return deleted;
          }
        };
        const sessionsEndedBefore = new Date(Date.now() - keepMs);
        const sessions = await inBatches(() =>
          sessionRepo.deleteEndedSessions(connection, sessionsEndedBefore, batchSize),
        );
        const eventsBefore = new Date(Date.now() - SIGN_IN_EVENTS_KEEP_DAYS * DAY_MS);
        const signInEvents = await inBatches(() =>
          signInEventRepo.deleteSignInEventsBefore(connection, eventsBefore, batchSize),
        );
        if (sessions + signInEvents > 0) {
          options.log.info(
            { sessions, signInEvents, batches, longestBatchMs: Math.round(longestBatchMs) },
            'sessions: old sessions and sign-ins deleted',
          );
        }
        return sessions + signInEvents;
      } finally {
        await sql`select pg_advisory_unlock(${PRUNING_LOCK_KEY})`.execute(connection);
      }
    });
  }

  function schedule(delayMs: number): void {
    timer = setTimeout(() => {
      pruneOnce()
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
