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
import { randomUUID } from 'node:crypto';

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

export function createRedisRateLimiter(
  url: string,
  prefix: string,
  now: () => number = Date.now,
): RateLimiter {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: false,
  });
  // A gate's two keys share a hash tag ({…}), so a Redis Cluster keeps them in one slot, as a
  // script touching both requires.
  const gateKeys = (rule: { name: string }, key: string) =>
    [`${prefix}${rule.name}:{${key}}`, `${prefix}${rule.name}:{${key}}:inside`] as const;
  redis.on('error', () => {
    // ioredis reconnects by itself; a failing call rejects and is answered as a server error.
  });
  return {
    async hit(rule, key) {
      const id = `${prefix}${rule.name}:${key}`;
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
      const id = `${prefix}${rule.name}:${key}`;
      const replies = await redis.multi().get(id).pttl(id).exec();
      return result(rule, Number(replies?.[0]?.[1] ?? 0), Number(replies?.[1]?.[1] ?? 0));
    },
    async reset(rule, key) {
      await redis.del(`${prefix}${rule.name}:${key}`);
      await redis.del(gateKeys(rule, key)[0]);
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
      // While Redis is away ioredis queues commands until it reconnects: the answer is the race.
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
    async close() {
      await redis.quit().catch(() => {});
    },
  };
}
