// The development clock (docs/decisions/021-one-clock-for-every-sandbox.md): outside production,
// `POST /dev/clock` moves the server's time forward for everything that asks it, JavaScript's
// `Date` and SQL's `now()` alike, and then tells whoever must act on the new time (the sandboxes
// renew and expire, the jobs run). `app.devClock` is null in production, where nothing of it exists.
import fp from 'fastify-plugin';

import type { Config } from '../config';
import { advanceDevClockOffsetMs, readDevClockOffsetMs } from '../db/dev-clock';
import { clockOffsetMs, setClockOffsetMs } from '../dev-clock/shifted-date';

/**
 * The cookie that tells the web app how far the clock moved, so that the browser's premium dates
 * and token renewals follow the server (apps/web/src/shared/http/dev-clock.ts reads it).
 */
export const DEV_CLOCK_COOKIE = 'kegel_dev_clock_ms';

/** Runs once the clock has moved; awaited in the order registered (sandboxes before jobs). */
export type ClockMovedListener = (now: Date) => unknown;

export interface DevClock {
  now(): Date;
  /** Moves the clock `seconds` forward, runs the listeners, and resolves with the new now. */
  advance(seconds: number): Promise<Date>;
  onMoved(listener: ClockMovedListener): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    devClock: DevClock | null;
  }
}

export const devClockPlugin = fp<{ config: Pick<Config, 'environment' | 'database'> }>(
  async function devClockPlugin(app, { config }) {
    if (!config.database.devClock) {
      app.decorate('devClock', null);
      return;
    }
    // config.ts never sets the flag in production; this says so where it matters.
    if (config.environment === 'production') {
      throw new Error('the development clock must never run in production');
    }
    const { db } = app.database;
    // After a restart on the same data the JavaScript clock agrees with the stored one again.
    setClockOffsetMs(await readDevClockOffsetMs(db));
    const listeners: ClockMovedListener[] = [];
    // One move at a time: a second waits for the first's listeners.
    let moving: Promise<unknown> = Promise.resolve();

    async function moveBy(seconds: number): Promise<Date> {
      setClockOffsetMs(await advanceDevClockOffsetMs(db, Math.round(seconds * 1000)));
      const now = new Date();
      app.log.info({ offsetMs: clockOffsetMs(), now }, 'dev clock: moved forward');
      for (const listener of listeners) {
        try {
          await listener(now);
        } catch (error) {
          app.log.error({ err: error }, 'dev clock: a listener failed after the move');
        }
      }
      return now;
    }

    const devClock: DevClock = {
      now: () => new Date(),
      advance(seconds) {
        const move = moving.then(() => moveBy(seconds));
        moving = move.catch(() => {});
        return move;
      },
      onMoved(listener) {
        listeners.push(listener);
      },
    };
    app.decorate('devClock', devClock);
    const { devClockRoutes } = await import('../dev-clock/dev-clock-routes');
    await app.register(devClockRoutes, { clock: devClock });
    app.addHook('onSend', async function tellTheBrowser(request, reply) {
      const offset = clockOffsetMs();
      // Only when there is something to say: an unmoved clock adds no header to any answer.
      if (offset === 0 && !request.headers.cookie?.includes(`${DEV_CLOCK_COOKIE}=`)) return;
      reply.header(
        'set-cookie',
        `${DEV_CLOCK_COOKIE}=${offset}; Path=/; SameSite=Strict${offset === 0 ? '; Max-Age=0' : ''}`,
      );
    });
    // The clock is the process's: a test's next server starts on real time.
    app.addHook('onClose', async () => {
      await moving;
      setClockOffsetMs(0);
    });
  },
  { name: 'dev-clock', dependencies: ['database'] },
);
