import { randomBytes } from 'node:crypto';

import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';

import {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  type FailureGateRule,
  type RateLimiter,
} from '../../src/security/rate-limiter';
import { startTcpProxy } from '../support/tcp-proxy';
import { testEnv } from '../support/test-env';

const gate: FailureGateRule = {
  name: 'test-gate',
  freeFailures: 3,
  firstDelaySeconds: 30,
  maxDelaySeconds: 120,
  forgetAfterSeconds: 3600,
};

/** A clock the test moves by hand. */
function manualClock() {
  let time = Date.UTC(2026, 10, 23, 12);
  return {
    now: () => time,
    advance(seconds: number) {
      time += seconds * 1000;
    },
  };
}

const implementations: Array<{
  name: string;
  create(clock: ReturnType<typeof manualClock>): RateLimiter;
}> = [{ name: 'memory', create: (clock) => createMemoryRateLimiter(() => clock.now()) }];
/** Warnings of the Redis limiter: one would mean these tests ran on its in-memory fallback. */
const redisWarnings: string[] = [];
if (testEnv.redisUrl) {
  const prefix = `test-gate-${Date.now()}:`;
  // One for every limiter of the run, as every process of a deployment shares TOKEN_SECRET's.
  const keySecret = randomBytes(32);
  const log = {
    warn: (_: object, message: string) => void redisWarnings.push(message),
    info() {},
  };
  implementations.push({
    name: 'Redis',
    create: (clock) =>
      createRedisRateLimiter(testEnv.redisUrl!, prefix, keySecret, () => clock.now(), log),
  });
}

describe.each(implementations)('failure gate in $name', (implementation) => {
  const limiters: RateLimiter[] = [];
  afterAll(async () => {
    await Promise.all(limiters.map((limiter) => limiter.close()));
    expect(redisWarnings).toEqual([]);
  });
  function setUp() {
    const clock = manualClock();
    const limiter = implementation.create(clock);
    limiters.push(limiter);
    return { clock, limiter, key: `account-${Math.random()}|203.0.113.1` };
  }

  async function fail(limiter: RateLimiter, key: string): Promise<void> {
    const answer = await limiter.enterGate(gate, key);
    if (answer.kind !== 'allowed') throw new Error(`expected to be let in, got ${answer.kind}`);
    await limiter.leaveGate(gate, key, answer.ticket, 'failure');
  }

  it('marks a key for a window that starts at each mark', async () => {
    const { clock, limiter, key } = setUp();
    const rule = { name: 'test-mark', limit: 1, windowSeconds: 60 };
    await limiter.mark(rule, key);
    clock.advance(50);
    await limiter.mark(rule, key);
    expect((await limiter.peek(rule, key)).count).toBe(1);
    if (implementation.name === 'memory') {
      clock.advance(50);
      expect((await limiter.peek(rule, key)).count).toBe(1);
      clock.advance(11);
      expect((await limiter.peek(rule, key)).count).toBe(0);
    }
  });

  it('lets the free failures through, then waits twice as long after each further one', async () => {
    const { clock, limiter, key } = setUp();
    for (let failure = 0; failure < 3; failure += 1) await fail(limiter, key);
    expect(await limiter.enterGate(gate, key)).toEqual({ kind: 'wait', retryAfterSeconds: 30 });

    clock.advance(30);
    await fail(limiter, key);
    expect(await limiter.enterGate(gate, key)).toEqual({ kind: 'wait', retryAfterSeconds: 60 });

    clock.advance(60);
    await fail(limiter, key);
    clock.advance(100);
    // 120 s is the cap: it does not grow past it.
    expect(await limiter.enterGate(gate, key)).toEqual({ kind: 'wait', retryAfterSeconds: 20 });
    clock.advance(20);
    await fail(limiter, key);
    expect(await limiter.enterGate(gate, key)).toEqual({ kind: 'wait', retryAfterSeconds: 120 });
  });

  it('forgets every failure on a success', async () => {
    const { clock, limiter, key } = setUp();
    for (let failure = 0; failure < 3; failure += 1) await fail(limiter, key);
    clock.advance(30);
    const right = await limiter.enterGate(gate, key);
    if (right.kind !== 'allowed') throw new Error('expected to be let in');
    await limiter.leaveGate(gate, key, right.ticket, 'success');
    // Three free failures again, with no wait between them.
    for (let failure = 0; failure < 3; failure += 1) await fail(limiter, key);
    expect(await limiter.enterGate(gate, key)).toEqual({ kind: 'wait', retryAfterSeconds: 30 });
  });

  it('forgets the failures on its own after a quiet while', async () => {
    const { clock, limiter, key } = setUp();
    for (let failure = 0; failure < 4; failure += 1) {
      await fail(limiter, key);
      clock.advance(30);
    }
    clock.advance(3600);
    for (let failure = 0; failure < 3; failure += 1) await fail(limiter, key);
    expect(await limiter.enterGate(gate, key)).toEqual({ kind: 'wait', retryAfterSeconds: 30 });
  });

  it('lets in at once only as many attempts as failures are left, then one at a time', async () => {
    const { clock, limiter, key } = setUp();
    const first = await Promise.all([1, 2, 3, 4].map(() => limiter.enterGate(gate, key)));
    expect(first.map((answer) => answer.kind)).toEqual(['allowed', 'allowed', 'allowed', 'busy']);
    for (const answer of first) {
      if (answer.kind === 'allowed') await limiter.leaveGate(gate, key, answer.ticket, 'failure');
    }
    clock.advance(30);
    const next = await Promise.all([1, 2].map(() => limiter.enterGate(gate, key)));
    expect(next.map((answer) => answer.kind)).toEqual(['allowed', 'busy']);
  });

  it('gives back the place of an abandoned attempt without counting it', async () => {
    const { limiter, key } = setUp();
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const answer = await limiter.enterGate(gate, key);
      if (answer.kind !== 'allowed') throw new Error('expected to be let in');
      await limiter.leaveGate(gate, key, answer.ticket, 'abandoned');
    }
    expect((await limiter.enterGate(gate, key)).kind).toBe('allowed');
  });
});

describe.runIf(testEnv.redisUrl)('counters in Redis', () => {
  it('keep counting when Redis forgets the scripts they run (SCRIPT FLUSH, a failover)', async () => {
    const warnings: string[] = [];
    const log = { warn: (_: object, message: string) => void warnings.push(message), info() {} };
    const clock = manualClock();
    const limiter = createRedisRateLimiter(
      testEnv.redisUrl!,
      `test-scripts-${Date.now()}:`,
      randomBytes(32),
      () => clock.now(),
      log,
    );
    const admin = new Redis(testEnv.redisUrl!);
    try {
      const rule = { name: 'test-count', limit: 2, windowSeconds: 60 };
      const key = `account-${Math.random()}|203.0.113.1`;
      expect(await limiter.hit(rule, key)).toMatchObject({ count: 1, isAllowed: true });
      const entered = await limiter.enterGate(gate, key);
      if (entered.kind !== 'allowed') throw new Error('expected to be let in');

      await admin.script('FLUSH');
      expect(await limiter.hit(rule, key)).toMatchObject({ count: 2, isAllowed: true });
      await limiter.leaveGate(gate, key, entered.ticket, 'failure');
      await admin.script('FLUSH');
      const [peeked] = await Promise.all([limiter.peek(rule, key), limiter.mark(rule, 'other')]);
      expect(peeked).toMatchObject({ count: 2, isAllowed: true });
      expect(peeked.retryAfterSeconds).toBeGreaterThan(50);
      expect(peeked.retryAfterSeconds).toBeLessThanOrEqual(60);
      expect(await limiter.hit(rule, key)).toMatchObject({ count: 3, isAllowed: false });
      // Counted in Redis throughout: a fallback to memory would have started again from one.
      expect(warnings).toEqual([]);
    } finally {
      admin.disconnect();
      await limiter.close();
    }
  });

  it('answer within the wait on a hung Redis, a call sent behind another one included', async () => {
    const target = new URL(testEnv.redisUrl!);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const waitMs = 1_000;
    const clock = manualClock();
    const limiter = createRedisRateLimiter(
      `redis://127.0.0.1:${proxy.port}`,
      `test-hung-${Date.now()}:`,
      randomBytes(32),
      () => clock.now(),
      undefined,
      waitMs,
    );
    const rule = { name: 'test-count', limit: 5, windowSeconds: 60 };
    try {
      expect((await limiter.peek(rule, 'before')).count).toBe(0);
      proxy.pause();
      // Sent, never answered: Redis's client holds what is sent after it until it is settled.
      const first = limiter.hit(rule, 'first');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = performance.now();
      expect(await limiter.hit(rule, 'second')).toMatchObject({ count: 1, isAllowed: true });
      // Counted in memory after one wait, not after the first call's wait and then its own
      // (about twice as long).
      expect(performance.now() - started).toBeLessThan(1.5 * waitMs);
      expect(await first).toMatchObject({ count: 1, isAllowed: true });
    } finally {
      await limiter.close();
      await proxy.close();
    }
  });
});
