// Work that must not all start at once: at most `atOnce` pieces run, the others wait their turn in
// the order they came, and beyond `maxWaiting` the newcomer is refused at once (with `whenFull`'s
// error) rather than queued without bound.

export interface Turns {
  /** Runs `work` at once while fewer than `atOnce` run, else when its turn comes. */
  take<T>(work: () => Promise<T>): Promise<T>;
  /** Pieces running and waiting (the metrics). */
  load(): { running: number; waiting: number };
}

export function createTurns(options: {
  atOnce: number;
  maxWaiting: number;
  whenFull: () => Error;
}): Turns {
  const { atOnce, maxWaiting, whenFull } = options;
  let running = 0;
  const waiting: Array<() => void> = [];

  return {
    async take(work) {
      if (running < atOnce) {
        running += 1;
      } else {
        if (waiting.length >= maxWaiting) throw whenFull();
        // The piece that ends hands its turn straight over: `running` stays as it is.
        await new Promise<void>((resolve) => waiting.push(resolve));
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
