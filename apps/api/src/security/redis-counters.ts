// The counters and gates in Redis, shared by every process, without any fallback: each call fails
// when Redis does (security/redis-rate-limiter.ts falls back to memory then).
//
// A counter's key never names what it counts (an email, an account, a client address): its name is
// an HMAC of it under a key derived from TOKEN_SECRET (`redisKeyName`), so whoever can list a
// shared Redis's keys learns no address, and cannot confirm a guessed one either.
import { createHmac, randomUUID } from 'node:crypto';

import type { Redis } from 'ioredis';

import {
  type FailureGateRule,
  type GateAnswer,
  type GateOutcome,
  type RateLimiter,
  rateLimitResult,
  STALE_ATTEMPT_MS,
} from './rate-limit-rules';

// A counter is a string with a time to live: counted (INCR, and its window started on the first
// count) or read (its count and time left) atomically, each in one script.
const HIT_COUNTER_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1], 'NX')
return {count, redis.call('PTTL', KEYS[1])}
`;

const PEEK_COUNTER_SCRIPT = `
return {redis.call('GET', KEYS[1]) or '0', redis.call('PTTL', KEYS[1])}
`;

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

/**
 * The name of what a counter counts (`key`) in Redis: 128 bits of its HMAC-SHA256 under
 * `keySecret`, the same in every process that shares the secret. Without the secret a name
 * cannot be traced back to an address, not even by trying guessed ones.
 */
export function redisKeyName(keySecret: Buffer, key: string): string {
  return createHmac('sha256', keySecret).update(key).digest().subarray(0, 16).toString('base64url');
}

/** The scripts above as commands of the client (ioredis's defineCommand). */
interface CounterCommands {
  hitCounter(key: string, windowMs: number): Promise<[number, number]>;
  peekCounter(key: string): Promise<[string, number]>;
  enterGate(...keysAndArguments: (string | number)[]): Promise<[GateAnswer['kind'], number]>;
  leaveGate(...keysAndArguments: (string | number)[]): Promise<unknown>;
}

/**
 * Each script becomes a command of the client: ioredis sends its text once on each connection
 * (EVAL), then only its SHA1 (EVALSHA), and the text again should Redis answer that it no longer
 * knows it (SCRIPT FLUSH, a failover behind a proxy). Defining them again on the same client
 * changes nothing.
 */
function withCounterCommands(redis: Redis): CounterCommands {
  redis.defineCommand('hitCounter', { numberOfKeys: 1, lua: HIT_COUNTER_SCRIPT });
  redis.defineCommand('peekCounter', { numberOfKeys: 1, lua: PEEK_COUNTER_SCRIPT });
  redis.defineCommand('enterGate', { numberOfKeys: 2, lua: ENTER_GATE_SCRIPT });
  redis.defineCommand('leaveGate', { numberOfKeys: 2, lua: LEAVE_GATE_SCRIPT });
  return redis as unknown as CounterCommands;
}

/** The counters and gates in Redis, without any fallback: each call fails when Redis does. */
export function redisCounters(
  redis: Redis,
  prefix: string,
  keySecret: Buffer,
  now: () => number,
): RateLimiter {
  const commands = withCounterCommands(redis);
  const counterKey = (rule: { name: string }, key: string) =>
    `${prefix}${rule.name}:${redisKeyName(keySecret, key)}`;
  // A gate's two keys share a hash tag ({…}), so a Redis Cluster keeps them in one slot, as a
  // script touching both requires.
  const gateKeys = (rule: { name: string }, key: string): GateKeys => {
    const name = `${prefix}${rule.name}:{${redisKeyName(keySecret, key)}}`;
    return [name, `${name}:inside`];
  };
  return {
    async hit(rule, key) {
      const [count, ttl] = await commands.hitCounter(
        counterKey(rule, key),
        rule.windowSeconds * 1000,
      );
      return rateLimitResult(rule, Number(count), Number(ttl));
    },
    async peek(rule, key) {
      const [count, ttl] = await commands.peekCounter(counterKey(rule, key));
      return rateLimitResult(rule, Number(count), Number(ttl));
    },
    async mark(rule, key) {
      await redis.set(counterKey(rule, key), 1, 'PX', rule.windowSeconds * 1000);
    },
    async reset(rule, key) {
      // Two calls at once, not one after the other: the wait on a hung Redis stays one timeout.
      // (Not one DEL of both keys: they may live in different slots of a Redis Cluster.)
      await Promise.all([redis.del(counterKey(rule, key)), redis.del(gateKeys(rule, key)[0])]);
    },
    enterGate: (rule, key) => enterRedisGate(commands, gateKeys(rule, key), rule, now()),
    leaveGate: (rule, key, ticket, outcome) =>
      leaveRedisGate(commands, gateKeys(rule, key), rule, ticket, outcome, now()),
    isAnswering: (timeoutMs) => answersPingWithin(redis, timeoutMs),
    async close() {},
  };
}

/** A gate's failures (a hash) and the tickets inside it (a sorted set). */
type GateKeys = readonly [failures: string, inside: string];

async function enterRedisGate(
  commands: CounterCommands,
  keys: GateKeys,
  rule: FailureGateRule,
  time: number,
): Promise<GateAnswer> {
  const ticket = randomUUID();
  const [kind, waitMs] = await commands.enterGate(
    ...keys,
    time,
    rule.freeFailures,
    rule.firstDelaySeconds * 1000,
    rule.maxDelaySeconds * 1000,
    rule.forgetAfterSeconds * 1000,
    STALE_ATTEMPT_MS,
    ticket,
  );
  if (kind === 'wait') return { kind, retryAfterSeconds: Math.ceil(Number(waitMs) / 1000) };
  return kind === 'busy' ? { kind } : { kind, ticket };
}

async function leaveRedisGate(
  commands: CounterCommands,
  keys: GateKeys,
  rule: FailureGateRule,
  ticket: string,
  outcome: GateOutcome,
  time: number,
): Promise<void> {
  await commands.leaveGate(...keys, ticket, outcome, time, rule.forgetAfterSeconds * 1000);
}

/** Whether Redis answers a PING within `timeoutMs`. */
async function answersPingWithin(redis: Redis, timeoutMs: number): Promise<boolean> {
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
}
