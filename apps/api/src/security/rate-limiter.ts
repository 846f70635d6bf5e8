// Fixed-window counters for rate limits. In memory by default (each process counts alone); in
// Redis when REDIS_URL is set, so every process behind a load balancer shares the same counts.
// Windows expire by themselves: a limit slows an attacker down but locks nobody out for good.
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

export interface RateLimiter {
  /** Counts one event against `key` and tells whether it is within the limit. */
  hit(rule: RateLimitRule, key: string): Promise<RateLimitResult>;
  reset(rule: RateLimitRule, key: string): Promise<void>;
  close(): Promise<void>;
}

function result(rule: RateLimitRule, count: number, ttlMs: number): RateLimitResult {
  return {
    isAllowed: count <= rule.limit,
    count,
    retryAfterSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
  };
}

export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { count: number; resetsAt: number }>();
  const sweep = setInterval(() => {
    const time = now();
    for (const [key, window] of windows) if (window.resetsAt <= time) windows.delete(key);
  }, 60_000);
  sweep.unref();

  function current(id: string): { count: number; resetsAt: number } | undefined {
    const window = windows.get(id);
    return window && window.resetsAt > now() ? window : undefined;
  }

  return {
    async hit(rule, key) {
      const id = `${rule.name}:${key}`;
      const window = current(id) ?? { count: 0, resetsAt: now() + rule.windowSeconds * 1000 };
      window.count += 1;
      windows.set(id, window);
      return result(rule, window.count, window.resetsAt - now());
    },
    async reset(rule, key) {
      windows.delete(`${rule.name}:${key}`);
    },
    async close() {
      clearInterval(sweep);
    },
  };
}

export function createRedisRateLimiter(url: string, prefix: string): RateLimiter {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: false,
  });
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
    async reset(rule, key) {
      await redis.del(`${prefix}${rule.name}:${key}`);
    },
    async close() {
      await redis.quit().catch(() => {});
    },
  };
}
