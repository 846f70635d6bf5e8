// Rate limits. In memory by default (each process counts alone); in Redis when REDIS_URL is set,
// so every process behind a load balancer shares the same counts. Two kinds:
//
// - fixed-window counters (`hit`, `peek`, `reset`): so many events per window, then refusals
//   until the window ends;
// - failure gates (`enterGate`, `leaveGate`) for password checks: a few free failures, then a
//   delay after each further failure that doubles up to a cap. Only failures count, yet a burst of
//   parallel guesses cannot slip through: an attempt holds a place in the gate while its password
//   is checked, and no more attempts are let in at once than failures are left (one at a time once
//   the delays have started). Attempts beyond that wait their turn (`busy`) instead of failing, so
//   many correct sign-ins at once all get through.
//
// Everything expires by itself: a limit slows an attacker down but locks nobody out for good.
//
// In Redis a counter's key never names what it counts (an email, an account, a client address):
// its name is an HMAC of it under a key derived from TOKEN_SECRET (`redisKeyName`), so whoever can
// list a shared Redis's keys learns no address, and cannot confirm a guessed one either.
import { createHmac, randomUUID } from 'node:crypto';

import { Redis } from 'ioredis';

export interface RateLimitResult {
  isAllowed: boolean;
  count: number;
  /** Seconds until the window resets. */
  retryAfterSeconds: number;
}

export interface RateLimitRule {
  /** Distinguishes counters of different rules: 'login-failures', 'reset-mail' ... */
  name: string;
  limit: number;
  windowSeconds: number;
}

export interface FailureGateRule {
  name: string;
  /** Failures allowed before any delay. */
  freeFailures: number;
  /** The wait after the first failure beyond the free ones; each further failure doubles it. */
  firstDelaySeconds: number;
  maxDelaySeconds: number;
  /** Failures are forgotten this long after the last one. */
  forgetAfterSeconds: number;
}

export type GateAnswer =
  /** Go ahead; hand the ticket back to `leaveGate` with the outcome. */
  | { kind: 'allowed'; ticket: string }
  /** Too many failures: the next attempt is welcome in this many seconds. */
  | { kind: 'wait'; retryAfterSeconds: number }
  /** As many attempts as may run at once are running: ask again in a moment. */
  | { kind: 'busy' };

export type GateOutcome = 'success' | 'failure' | 'abandoned';

export interface RateLimiter {
  /** Counts one event against `key` and tells whether it is within the limit. */
  hit(rule: RateLimitRule, key: string): Promise<RateLimitResult>;
  /** The events counted against `key` in the current window, without counting one. */
  peek(rule: RateLimitRule, key: string): Promise<RateLimitResult>;
  /** Counts `key` once in a window that starts now (a mark that lasts the rule's window). */
  mark(rule: RateLimitRule, key: string): Promise<void>;
  /** Forgets `key`'s count, or its failures for a gate. */
  reset(rule: RateLimitRule | FailureGateRule, key: string): Promise<void>;
  enterGate(rule: FailureGateRule, key: string): Promise<GateAnswer>;
  /**
   * A failure is remembered (and delays the next attempt); a success forgets every failure; an
   * attempt abandoned (the check itself failed) only gives its place back.
   */
  leaveGate(
    rule: FailureGateRule,
    key: string,
    ticket: string,
    outcome: GateOutcome,
  ): Promise<void>;
  /** Whether the counters can be reached within `timeoutMs` (always, in memory): readiness. */
  isAnswering(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** An attempt that never left the gate (its process died mid-check) stops holding a place. */
const STALE_ATTEMPT_MS = 30_000;

/** The wait owed after the last of `failures` failures. */
export function gateDelayMs(rule: FailureGateRule, failures: number): number {
  if (failures < rule.freeFailures) return 0;
  const doublings = Math.min(30, failures - rule.freeFailures);
  return Math.min(rule.maxDelaySeconds, rule.firstDelaySeconds * 2 ** doublings) * 1000;
}

/** How many attempts may be checked at once with `failures` failures on record. */
function placesInGate(rule: FailureGateRule, failures: number): number {
  return Math.max(1, rule.freeFailures - failures);
}

/** Where `count` events stand against the rule; `isAllowed` tells if the last one was within it. */
function result(rule: RateLimitRule, count: number, ttlMs: number): RateLimitResult {
  return {
    isAllowed: count <= rule.limit,
    count,
    retryAfterSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
  };
}

interface GateState {
  failures: number;
  lastFailureAt: number;
  /** When the failures are forgotten. */
  forgetAt: number;
  /** Tickets of the attempts being checked, with when they entered. */
  inside: Map<string, number>;
}

export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { count: number; resetsAt: number }>();
  const gates = new Map<string, GateState>();
  const sweep = setInterval(() => {
    const time = now();
    for (const [key, window] of windows) if (window.resetsAt <= time) windows.delete(key);
    for (const [key, gate] of gates) {
      if (gate.inside.size === 0 && gate.forgetAt <= time) gates.delete(key);
    }
  }, 60_000);
  sweep.unref();

  function current(id: string): { count: number; resetsAt: number } | undefined {
    const window = windows.get(id);
    return window && window.resetsAt > now() ? window : undefined;
  }

  function gateOf(rule: FailureGateRule, key: string): GateState {
    const id = `${rule.name}:${key}`;
    const time = now();
    let gate = gates.get(id);
    if (!gate) {
      gate = { failures: 0, lastFailureAt: 0, forgetAt: 0, inside: new Map() };
      gates.set(id, gate);
    }
    if (gate.forgetAt <= time) {
      gate.failures = 0;
      gate.lastFailureAt = 0;
    }
    for (const [ticket, enteredAt] of gate.inside) {
      if (enteredAt + STALE_ATTEMPT_MS <= time) gate.inside.delete(ticket);
    }
    return gate;
  }

  return {
    async hit(rule, key) {
      const id = `${rule.name}:${key}`;
      const window = current(id) ?? { count: 0, resetsAt: now() + rule.windowSeconds * 1000 };
      window.count += 1;
      windows.set(id, window);
      return result(rule, window.count, window.resetsAt - now());
    },
    async peek(rule, key) {
      const window = current(`${rule.name}:${key}`);
      return result(rule, window?.count ?? 0, (window?.resetsAt ?? now()) - now());
    },
    async mark(rule, key) {
      windows.set(`${rule.name}:${key}`, { count: 1, resetsAt: now() + rule.windowSeconds * 1000 });
    },
    async reset(rule, key) {
      windows.delete(`${rule.name}:${key}`);
      gates.delete(`${rule.name}:${key}`);
    },
    async enterGate(rule, key) {
      const gate = gateOf(rule, key);
      const time = now();
      const waitMs = gate.lastFailureAt + gateDelayMs(rule, gate.failures) - time;
      if (waitMs > 0) return { kind: 'wait', retryAfterSeconds: Math.ceil(waitMs / 1000) };
      if (gate.inside.size >= placesInGate(rule, gate.failures)) return { kind: 'busy' };
      const ticket = randomUUID();
      gate.inside.set(ticket, time);
      return { kind: 'allowed', ticket };
    },
    async leaveGate(rule, key, ticket, outcome) {
      const gate = gateOf(rule, key);
      gate.inside.delete(ticket);
      if (outcome === 'success') {
        gate.failures = 0;
        gate.lastFailureAt = 0;
        gate.forgetAt = 0;
      } else if (outcome === 'failure') {
        gate.failures += 1;
        gate.lastFailureAt = now();
        gate.forgetAt = gate.lastFailureAt + rule.forgetAfterSeconds * 1000;
      }
    },
    async isAnswering() {
      return true;
    },
    async close() {
      clearInterval(sweep);
    },
  };
}

// The gate's state is a hash (failures, last failure time) and a sorted set of the tickets inside
// (scored by entry time). Each script runs atomically in Redis, so processes cannot interleave.
// Times come from the caller (ARGV), so every process and the tests agree on one clock.
const ENTER_GATE_SCRIPT = `
local now = tonumber(ARGV[1])
local free = tonumber(ARGV[2])
local firstMs = tonumber(ARGV[3])
local maxMs = tonumber(ARGV[4])
local forgetMs = tonumber(ARGV[5])
local staleMs = tonumber(ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - staleMs)
local failures = tonumber(redis.call('HGET', KEYS[1], 'failures') or '0')
local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
if failures > 0 and last + forgetMs <= now then
  failures = 0
  redis.call('DEL', KEYS[1])
end
local delay = 0
if failures >= free then
  delay = math.min(maxMs, firstMs * math.pow(2, math.min(30, failures - free)))
end
local wait = last + delay - now
if wait > 0 then return {'wait', wait} end
local places = math.max(1, free - failures)
if redis.call('ZCARD', KEYS[2]) >= places then return {'busy', 0} end
redis.call('ZADD', KEYS[2], now, ARGV[7])
redis.call('PEXPIRE', KEYS[2], staleMs)
return {'allowed', 0}
`;

const LEAVE_GATE_SCRIPT = `
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[2] == 'success' then
  redis.call('DEL', KEYS[1])
elseif ARGV[2] == 'failure' then
  local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
  if last + tonumber(ARGV[4]) <= tonumber(ARGV[3]) then redis.call('DEL', KEYS[1]) end
  redis.call('HINCRBY', KEYS[1], 'failures', 1)
  redis.call('HSET', KEYS[1], 'last', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
end
return 1
`;

/** What the limiter tells the operator: that Redis went away, and that it came back. */
export interface RateLimiterLog {
  warn(details: object, message: string): void;
  info(message: string): void;
}

const silentLog: RateLimiterLog = { warn: () => {}, info: () => {} };

/**
 * The longest a call waits on Redis (to connect at start, or for one command's answer) before it
 * is counted in this process instead: no request may wait a second on Redis (docs/deployment.md,
 * Running in production: Outages). A gate's Lua script or a counter's MULTI is one round trip, far
 * quicker when well.
 */
const REDIS_WAIT_MS = 500;
/** While Redis is away, how often it is asked whether it is back. */
const REDIS_PROBE_MS = 1_000;

/**
 * The name of what a counter counts (`key`) in Redis: 128 bits of its HMAC-SHA256 under
 * `keySecret`, the same in every process that shares the secret. Without the secret a name
 * cannot be traced back to an address, not even by trying guessed ones.
 */
export function redisKeyName(keySecret: Buffer, key: string): string {
  return createHmac('sha256', keySecret).update(key).digest().subarray(0, 16).toString('base64url');
}

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
): RateLimiter {
  const redis = new Redis(url, {
    connectTimeout: REDIS_WAIT_MS * 2,
    // A command without an answer (a hung server, a network that drops packets) rejects after
    // this long; without it, it would wait for the TCP connection to die, minutes later.
    commandTimeout: REDIS_WAIT_MS,
    // Never queue or resend a call while disconnected: it fails at once and is counted here. A
    // queued INCR sent minutes later would count an event twice.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Reconnects in the background, soon: the probe below needs a connection to see Redis back.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // Failed (re)connections are reported once, by fallBack below, not once per attempt.
  redis.on('error', () => {});

  const shared = redisCounters(redis, prefix, keySecret, now);
  const local = createMemoryRateLimiter(now);
  let isRedisAway = false;
  let isProbing = false;
  let probe: NodeJS.Timeout | undefined;
  // Commands fail at once until the first connection is ready: the first calls after start wait
  // for it (briefly) rather than count in memory while Redis is merely still connecting.
  const firstConnection = connectedOrGaveUp(redis, REDIS_WAIT_MS);

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

  async function counted<T>(call: (limiter: RateLimiter) => Promise<T>): Promise<T> {
    await firstConnection;
    if (!isRedisAway) {
      try {
        return await call(shared);
      } catch (error) {
        fallBack(error);
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
      clearInterval(probe);
      await local.close();
      if (redis.status === 'ready') await redis.quit().catch(() => {});
      // Stops reconnecting too, when Redis was away at the end.
      redis.disconnect();
    },
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

/** The counters and gates in Redis, without any fallback: each call fails when Redis does. */
function redisCounters(
  redis: Redis,
  prefix: string,
  keySecret: Buffer,
  now: () => number,
): RateLimiter {
  const counterKey = (rule: { name: string }, key: string) =>
    `${prefix}${rule.name}:${redisKeyName(keySecret, key)}`;
  // A gate's two keys share a hash tag ({…}), so a Redis Cluster keeps them in one slot, as a
  // script touching both requires.
  const gateKeys = (rule: { name: string }, key: string) => {
    const name = `${prefix}${rule.name}:{${redisKeyName(keySecret, key)}}`;
    return [name, `${name}:inside`] as const;
  };
  return {
    async hit(rule, key) {
      const id = counterKey(rule, key);
      const replies = await redis
        .multi()
        .incr(id)
        .pexpire(id, rule.windowSeconds * 1000, 'NX')
        .pttl(id)
        .exec();
      const count = Number(replies?.[0]?.[1] ?? 0);
      const ttl = Number(replies?.[2]?.[1] ?? rule.windowSeconds * 1000);
      return result(rule, count, ttl);
    },
    async peek(rule, key) {
      const id = counterKey(rule, key);
      const replies = await redis.multi().get(id).pttl(id).exec();
      return result(rule, Number(replies?.[0]?.[1] ?? 0), Number(replies?.[1]?.[1] ?? 0));
    },
    async mark(rule, key) {
      await redis.set(counterKey(rule, key), 1, 'PX', rule.windowSeconds * 1000);
    },
    async reset(rule, key) {
      // Two calls at once, not one after the other: the wait on a hung Redis stays one timeout.
      // (Not one DEL of both keys: they may live in different slots of a Redis Cluster.)
      await Promise.all([redis.del(counterKey(rule, key)), redis.del(gateKeys(rule, key)[0])]);
    },
    async enterGate(rule, key) {
      const ticket = randomUUID();
      const [kind, waitMs] = (await redis.eval(
        ENTER_GATE_SCRIPT,
        2,
        ...gateKeys(rule, key),
        now(),
        rule.freeFailures,
        rule.firstDelaySeconds * 1000,
        rule.maxDelaySeconds * 1000,
        rule.forgetAfterSeconds * 1000,
        STALE_ATTEMPT_MS,
        ticket,
      )) as [GateAnswer['kind'], number];
      if (kind === 'wait') return { kind, retryAfterSeconds: Math.ceil(Number(waitMs) / 1000) };
      return kind === 'busy' ? { kind } : { kind, ticket };
    },
    async leaveGate(rule, key, ticket, outcome) {
      await redis.eval(
        LEAVE_GATE_SCRIPT,
        2,
        ...gateKeys(rule, key),
        ticket,
        outcome,
        now(),
        rule.forgetAfterSeconds * 1000,
      );
    },
    async isAnswering(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const ping = redis.ping().then(
        (reply) => reply === 'PONG',
        () => false,
      );
      try {
        return await Promise.race([ping, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {},
  };
}
