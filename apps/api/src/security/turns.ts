// Work that must not all start at once: at most `atOnce` pieces run, the others wait their turn in
// the order they came, and beyond `maxWaiting` the newcomer is refused at once (with `whenFull`'s
// error) rather than queued without bound. A piece whose caller has gone (its signal aborted)
// leaves the line without running, with `whenAbandoned`'s error: under a storm, clients that gave
// up would otherwise still have their sign-ins run, on turns those still waiting need.

export interface Turns {
  /** Runs `work` at once while fewer than `atOnce` run, else when its turn comes. */
  take<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Pieces running and waiting (the metrics). */
  load(): { running: number; waiting: number };
}

export function createTurns(options: {
  atOnce: number;
  maxWaiting: number;
  whenFull: () => Error;
  /** The error of a piece whose caller left while it waited; `whenFull`'s unless given. */
  whenAbandoned?: () => Error;
}): Turns {
  const { atOnce, maxWaiting, whenFull, whenAbandoned = whenFull } = options;
  let running = 0;
  const waiting: Array<() => void> = [];

  return {
    async take(work, signal) {
      if (signal?.aborted) throw whenAbandoned();
      if (running < atOnce) {
        running += 1;
      } else {
        if (waiting.length >= maxWaiting) throw whenFull();
        // The piece that ends hands its turn straight over: `running` stays as it is.
        await new Promise<void>((resolve, reject) => {
          const leave = () => {
            waiting.splice(waiting.indexOf(turnCame), 1);
            reject(whenAbandoned());
          };
          const turnCame = () => {
            signal?.removeEventListener('abort', leave);
            resolve();
          };
          waiting.push(turnCame);
          signal?.addEventListener('abort', leave, { once: true });
        });
      }
      try {
        return await work();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else running -= 1;
      }
    },
    load: () => ({ running, waiting: waiting.length }),
  };
}
