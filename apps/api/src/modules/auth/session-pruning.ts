// Sessions and their refresh tokens are kept 30 days after they end (revoked or expired), then
// deleted by the server itself; sign-in events (the sign-in history) are kept 90 days. Every
// process runs the job; a session-level advisory lock lets one at a time do the work, and a
// DELETE run twice deletes nothing twice anyway.
//
// It deletes in batches, each its own statement and so its own transaction: on a table of
// millions a single DELETE of everything due would hold its row locks (and keep the member whose
// old session it is waiting, should he sign out everywhere or delete his account) for as long as
// the whole deletion takes. How many rows a batch can take within its time depends on where they
// are: sessions that ended a month ago, with their refresh tokens and index entries, are mostly
// on disk, not in PostgreSQL's buffers, and each costs about 2 ms to delete among ten million (a
// heap page and a primary-key leaf read, and its refresh tokens by cascade, one index lookup
// each), where rows written a moment before cost 0.02 ms. A batch of 500 took 301 ms in a bench
// run that met 181 of them; an EXPLAIN of 50 of them, 126 ms; batches of 20 over 616 of them, at
// most 51 ms (docs/benchmarks/scale.md). So a batch is 20 rows at most, and sized by the time
// the one before took: halved after a batch slower than 40 ms (a busy disk), doubled back after
// one quicker than 20 ms, never under 5.
import { type Kysely, sql, type Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import * as sessionRepo from './session-repo';
import { SIGN_IN_EVENTS_KEEP_DAYS } from './sign-in-history';
import * as signInEventRepo from './sign-in-event-repo';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a batch should take, and so hold its row locks, at most as a rule (issue 30: 100 ms). */
const BATCH_TARGET_MS = 40;
const SMALLEST_BATCH_ROWS = 5;
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
  /** The most rows one statement deletes: 20 (batches are sized by time below that). */
  batchSize?: number;
}

export function createSessionPruning(options: SessionPruningOptions) {
  const keepMs = options.keepMs ?? 30 * DAY_MS;
  const intervalMs = options.intervalMs ?? 6 * 60 * 60 * 1000;
  const batchSize = options.batchSize ?? 20;
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
        /**
         * Runs one kind of batch until fewer rows were due than it asked for, each batch sized
         * by the time the one before took, and each in a transaction whose commit does not wait
         * for its log to reach the disk: its row locks go as soon as it is done (a busy disk's
         * flush took up to a second here, 28 November). A crash may lose the last batches'
         * deletions, which the next run makes again. Set for the transaction only: the
         * connection goes back to the pool as it came. The rows deleted.
         */
        const inBatches = async (
          deleteBatch: (
            transaction: Transaction<Database>,
            rows: number,
          ) => Promise<{ due: number; deleted: number }>,
        ) => {
          let deleted = 0;
          let rows = batchSize;
          for (;;) {
            const started = performance.now();
            const batch = await connection.transaction().execute(async (transaction) => {
              await sql`set local synchronous_commit = off`.execute(transaction);
              return deleteBatch(transaction, rows);
            });
            const batchMs = performance.now() - started;
            longestBatchMs = Math.max(longestBatchMs, batchMs);
            batches += 1;
            deleted += batch.deleted;
            // Fewer due than asked: the backlog is done. (Fewer deleted than due only means some
            // went meanwhile, with their account, say.)
            if (batch.due < rows) return deleted;
            if (batchMs > BATCH_TARGET_MS) {
              rows = Math.max(Math.min(SMALLEST_BATCH_ROWS, batchSize), Math.floor(rows / 2));
            } else if (batchMs < BATCH_TARGET_MS / 2) {
              rows = Math.min(batchSize, rows * 2);
            }
          }
        };
        const sessionsEndedBefore = new Date(Date.now() - keepMs);
        const sessions = await inBatches((transaction, rows) =>
          sessionRepo.deleteEndedSessions(transaction, sessionsEndedBefore, rows),
        );
        const eventsBefore = new Date(Date.now() - SIGN_IN_EVENTS_KEEP_DAYS * DAY_MS);
        const signInEvents = await inBatches((transaction, rows) =>
          signInEventRepo.deleteSignInEventsBefore(transaction, eventsBefore, rows),
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
