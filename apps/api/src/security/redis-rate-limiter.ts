// The rate limiter that counts in Redis, shared by every process, and falls back to this process's
// memory while Redis is away (security/rate-limiter.ts explains the two kinds of limit).
import { Redis } from 'ioredis';

import { createMemoryRateLimiter } from './memory-rate-limiter';
import type { RateLimiter } from './rate-limit-rules';
import { redisCounters } from './redis-counters';

/** What the limiter tells the operator: that Redis went away, and that it came back. */
export interface RateLimiterLog {
  warn(details: object, message: string): void;
  info(message: string): void;
}

const silentLog: RateLimiterLog = { warn: () => {}, info: () => {} };

/**
 * The longest a call waits on Redis (to connect at start, or for its answer) before it is counted
 * in this process instead: no request may wait a second on Redis (docs/deployment.md, Running in
 * production: Outages). A gate's or a counter's Lua script is one round trip, far quicker when
 * well.
 */
const REDIS_WAIT_MS = 500;
/** While Redis is away, how often it is asked whether it is back. */
const REDIS_PROBE_MS = 1_000;

/**
 * Counts in Redis, shared by every process; while Redis cannot be reached (refused, hung, gone
 * mid-call) counts in this process's memory instead, so a Redis outage slows nobody down and
 * fails no request. The limits still hold then, per process. The switch is logged once each way
 * (a warning when Redis goes, an info line when it is back), not once per request. `keySecret`
 * names the counters (`redisKeyName`): every process sharing the counts must share it.
 */
export function createRedisRateLimiter(
  url: string,
  prefix: string,
  keySecret: Buffer,
  now: () => number = Date.now,
  log: RateLimiterLog = silentLog,
  /** REDIS_WAIT_MS; tests on a loaded machine wait longer, so that they see the counts shared. */
  waitMs: number = REDIS_WAIT_MS,
): RateLimiter {
  const redis = connectToRedis(url, waitMs);
  const shared = redisCounters(redis, prefix, keySecret, now);
  const local = createMemoryRateLimiter(now);
  // Commands fail at once until the first connection is ready: the first calls after start wait
  // for it (briefly) rather than count in memory while Redis is merely still connecting.
  const firstConnection = connectedOrGaveUp(redis, waitMs);
  const watch = watchRedis(redis, log);

  async function counted<T>(call: (limiter: RateLimiter) => Promise<T>): Promise<T> {
    await firstConnection;
    if (!watch.isRedisAway()) {
      try {
        return await answeredWithin(call(shared), waitMs);
      } catch (error) {
        watch.fallBack(error);
      }
    }
    return call(local);
  }

  return {
    hit: (rule, key) => counted((limiter) => limiter.hit(rule, key)),
    peek: (rule, key) => counted((limiter) => limiter.peek(rule, key)),
    mark: (rule, key) => counted((limiter) => limiter.mark(rule, key)),
    reset: (rule, key) => counted((limiter) => limiter.reset(rule, key)),
    enterGate: (rule, key) => counted((limiter) => limiter.enterGate(rule, key)),
    // A ticket from one store handed back to the other is unknown there and does no harm: the
    // outcome is still counted, and a stale place in the gate frees itself (STALE_ATTEMPT_MS).
    leaveGate: (rule, key, ticket, outcome) =>
      counted((limiter) => limiter.leaveGate(rule, key, ticket, outcome)),
    // Redis itself, never the fallback: readiness tells a load balancer that Redis is away.
    isAnswering: async (timeoutMs) => {
      await firstConnection;
      return shared.isAnswering(timeoutMs);
    },
    async close() {
      watch.stop();
      await local.close();
      if (redis.status === 'ready') await redis.quit().catch(() => {});
      // Stops reconnecting too, when Redis was away at the end.
      redis.disconnect();
    },
  };
}

function connectToRedis(url: string, waitMs: number): Redis {
  const redis = new Redis(url, {
    connectTimeout: waitMs * 2,
    // A command without an answer (a hung server, a network that drops packets) rejects after
    // this long; without it, it would wait for the TCP connection to die, minutes later.
    commandTimeout: waitMs,
    // Never queue or resend a call while disconnected: it fails at once and is counted here. A
    // queued INCR sent minutes later would count an event twice.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Reconnects in the background, soon: watchRedis's probe needs a connection to see Redis back.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    // Commands sent in the same turn of the event loop go to Redis together, in one write: a
    // sign-in asks whether its network is known as it enters the failure gate, and marks the
    // network as it leaves (credential-checks.ts), one round trip each. Commands sent while such
    // a batch is on its way wait for it, so a call's wait is bounded in `counted` (answeredWithin)
    // rather than by commandTimeout alone, which starts when a command is sent.
    enableAutoPipelining: true,
  });
  // Failed (re)connections are reported once, by watchRedis's fallBack, not once per attempt.
  redis.on('error', () => {});
  return redis;
}

/**
 * `answer`, or a rejection `waitMs` after the call was made, whatever held it (a hung Redis, or
 * the client's queue behind a batch sent to one).
 */
async function answeredWithin<T>(answer: Promise<T>, waitMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${waitMs} ms`)), waitMs);
  });
  try {
    // A late answer, or its failure, is still taken by the race and dropped.
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether Redis is away: it is once a call fails (`fallBack`, logged once), and is back once a
 * probe, every REDIS_PROBE_MS or on reconnection, gets an answer (logged once too).
 */
function watchRedis(redis: Redis, log: RateLimiterLog) {
  let isRedisAway = false;
  let isProbing = false;
  let probe: NodeJS.Timeout | undefined;

  function fallBack(error: unknown): void {
    if (isRedisAway) return;
    isRedisAway = true;
    log.warn(
      { err: (error as Error).message },
      'rate limits: Redis is not answering; counting in this process until it does',
    );
    probe = setInterval(() => void checkRedisIsBack(), REDIS_PROBE_MS);
    probe.unref();
  }

  async function checkRedisIsBack(): Promise<void> {
    if (!isRedisAway || isProbing) return;
    isProbing = true;
    try {
      await redis.ping();
      isRedisAway = false;
      clearInterval(probe);
      log.info('rate limits: Redis answers again; counting there');
    } catch {
      // Still away: the next probe asks again.
    } finally {
      isProbing = false;
    }
  }
  redis.on('ready', () => void checkRedisIsBack());

  return {
    isRedisAway: () => isRedisAway,
    fallBack,
    stop: () => clearInterval(probe),
  };
}

/** Resolves once the first connection is ready or failed, or after `waitMs`, whichever is first. */
function connectedOrGaveUp(redis: Redis, waitMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, waitMs);
    timer.unref();
    redis.once('ready', done);
    redis.once('error', done);
  });
}
