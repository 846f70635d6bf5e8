// A lease for a job that must run in one process at a time, whatever number of processes share
// the database (ADR 022). The job's row in job_leases names its holder and until when it holds
// it: taking it is one upsert that succeeds only when the row is free, expired or already this
// holder's, so two processes racing for it cannot both win. A holder renews while it works and
// releases when done; one that stops mid-run holds the job only until its lease runs out.
//
// Times are the database's (`now()`), not the processes': their clocks may disagree, the
// database's is the one they share.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';

import { type Kysely, sql } from 'kysely';

import type { Database } from '../db/schema';

export interface JobLease {
  readonly jobName: string;
  /** This process's name for itself in job_leases: host, process id and a random part. */
  readonly holder: string;
  /** True when this holder now holds the job, for `durationMs` from now. */
  take(): Promise<boolean>;
  /** Pushes the end out to `durationMs` from now; false when the lease is no longer ours. */
  renew(): Promise<boolean>;
  /** Frees the job for the next taker (nothing when it is not ours). */
  release(): Promise<void>;
}

export interface JobLeaseOptions {
  jobName: string;
  /** Longer than a run between renewals can take: a lease that runs out mid-run is lost. */
  durationMs: number;
  /** Tests name two holders in one process; a process's jobs otherwise name themselves. */
  holder?: string;
}

export function createJobLease(db: Kysely<Database>, options: JobLeaseOptions): JobLease {
  const { jobName, durationMs } = options;
  const holder = options.holder ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const until = sql<Date>`now() + ${durationMs} * interval '1 millisecond'`;
  return {
    jobName,
    holder,
    async take() {
      const taken = await db
        .insertInto('jobLeases')
        .values({ jobName, holder, leasedUntil: until })
        .onConflict((conflict) =>
          conflict
            .column('jobName')
            .doUpdateSet({ holder, leasedUntil: until })
            .where((row) =>
              row.or([
                row('jobLeases.leasedUntil', '<=', sql<Date>`now()`),
                row('jobLeases.holder', '=', holder),
              ]),
            ),
        )
        .returning('holder')
        .executeTakeFirst();
      return taken !== undefined;
    },
    async renew() {
      const renewed = await db
        .updateTable('jobLeases')
        .set({ leasedUntil: until })
        .where('jobName', '=', jobName)
        .where('holder', '=', holder)
        .executeTakeFirst();
      return renewed.numUpdatedRows > 0n;
    },
    async release() {
      await db
        .deleteFrom('jobLeases')
        .where('jobName', '=', jobName)
        .where('holder', '=', holder)
        .execute();
    },
  };
}

/**
 * Runs `work` if the lease can be taken, releasing it after (also when `work` fails); undefined
 * when another holder has the job.
 */
export async function runUnderLease<T>(
  lease: JobLease,
  work: () => Promise<T>,
): Promise<T | undefined> {
  if (!(await lease.take())) return undefined;
  try {
    return await work();
  } finally {
    await lease.release();
  }
}
