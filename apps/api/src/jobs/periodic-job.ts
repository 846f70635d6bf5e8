// The shape of a job the server runs beside its requests: a first run some time after start,
// then one every interval, never two at once in this process, stopped when the server closes.
// A run's failure is logged and the next run comes as planned. Whether several processes may run
// it at once is the job's own business (a lease, job-lease.ts, when they may not).
export interface PeriodicJobOptions<Result = void> {
  /** Names the job in its log lines. */
  name: string;
  intervalMs: number;
  /** After start: long enough for the server to be up, short enough to matter after a deploy. */
  firstDelayMs: number;
  run: () => Promise<Result>;
  log: { error(details: object, message: string): void };
}

export interface PeriodicJob<Result = void> {
  /** One run now (tests, a development clock); joins the run under way if there is one. */
  runOnce: () => Promise<Result>;
  start: () => void;
  stop: () => void;
}

export function createPeriodicJob<Result = void>(
  options: PeriodicJobOptions<Result>,
): PeriodicJob<Result> {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<Result> | undefined;

  function runOnce(): Promise<Result> {
    running ??= options.run().finally(() => {
      running = undefined;
    });
    return running;
  }

  function schedule(delayMs: number): void {
    timer = setTimeout(() => {
      runOnce()
        .catch((error: unknown) => {
          options.log.error({ err: error }, `${options.name}: run failed; next run later`);
        })
        .finally(() => {
          if (timer) schedule(options.intervalMs);
        });
    }, delayMs);
    // A pending run never keeps the process alive.
    timer.unref();
  }

  return {
    runOnce,
    start() {
      schedule(options.firstDelayMs);
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
