// Deleted accounts' Stripe customers that Stripe has not deleted yet (it was down, or the process
// stopped right after the account's deletion) are tried again by the server itself: every
// process runs this, and each deletion is taken by one at a time (a lease, repo.ts).
export interface CustomerDeletionRetriesOptions {
  retryDue: () => Promise<number>;
  log: {
    info(details: object, message: string): void;
    error(details: object, message: string): void;
  };
  /** How often: every 10 minutes, the first a minute after start. */
  intervalMs?: number;
}

export function createCustomerDeletionRetries(options: CustomerDeletionRetriesOptions) {
  const intervalMs = options.intervalMs ?? 10 * 60 * 1000;
  let timer: NodeJS.Timeout | undefined;

  function schedule(delayMs: number): void {
    timer = setTimeout(() => {
      options
        .retryDue()
        .then((done) => {
          if (done > 0) options.log.info({ done }, 'stripe: customers of deleted accounts deleted');
        })
        .catch((error: unknown) => {
          options.log.error(
            { err: error },
            'stripe: customer deletions not retried; next run later',
          );
        })
        .finally(() => {
          if (timer) schedule(intervalMs);
        });
    }, delayMs);
    // A pending run never keeps the process alive.
    timer.unref();
  }

  return {
    start(): void {
      schedule(60_000);
    },
    stop(): void {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
