// The rate limiter that counts in this process's memory: the default, and the Redis limiter's
// fallback while Redis is away (security/rate-limiter.ts explains the two kinds of limit).
import { randomUUID } from 'node:crypto';

import {
  type FailureGateRule,
  gateDelayMs,
  placesInGate,
  type RateLimiter,
  rateLimitResult,
  STALE_ATTEMPT_MS,
} from './rate-limit-rules';

interface Window {
  count: number;
  resetsAt: number;
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
  const windows = new Map<string, Window>();
  const gates = new Map<string, GateState>();
  const sweep = sweepEveryMinute(windows, gates, now);

  function current(id: string): Window | undefined {
    const window = windows.get(id);
    return window && window.resetsAt > now() ? window : undefined;
  }

  return {
    async hit(rule, key) {
      const id = `${rule.name}:${key}`;
      const window = current(id) ?? { count: 0, resetsAt: now() + rule.windowSeconds * 1000 };
      window.count += 1;
      windows.set(id, window);
      return rateLimitResult(rule, window.count, window.resetsAt - now());
    },
    async peek(rule, key) {
      const window = current(`${rule.name}:${key}`);
      return rateLimitResult(rule, window?.count ?? 0, (window?.resetsAt ?? now()) - now());
    },
    async mark(rule, key) {
      windows.set(`${rule.name}:${key}`, { count: 1, resetsAt: now() + rule.windowSeconds * 1000 });
    },
    async reset(rule, key) {
      windows.delete(`${rule.name}:${key}`);
      gates.delete(`${rule.name}:${key}`);
    },
    async enterGate(rule, key) {
      const gate = gateOf(gates, rule, key, now());
      const time = now();
      const waitMs = gate.lastFailureAt + gateDelayMs(rule, gate.failures) - time;
      if (waitMs > 0) return { kind: 'wait', retryAfterSeconds: Math.ceil(waitMs / 1000) };
      if (gate.inside.size >= placesInGate(rule, gate.failures)) return { kind: 'busy' };
      const ticket = randomUUID();
      gate.inside.set(ticket, time);
      return { kind: 'allowed', ticket };
    },
    async leaveGate(rule, key, ticket, outcome) {
      const gate = gateOf(gates, rule, key, now());
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

/** Drops the windows and gates that have expired, so the maps do not grow without end. */
function sweepEveryMinute(
  windows: Map<string, Window>,
  gates: Map<string, GateState>,
  now: () => number,
): NodeJS.Timeout {
  const sweep = setInterval(() => {
    const time = now();
    for (const [key, window] of windows) if (window.resetsAt <= time) windows.delete(key);
    for (const [key, gate] of gates) {
      if (gate.inside.size === 0 && gate.forgetAt <= time) gates.delete(key);
    }
  }, 60_000);
  sweep.unref();
  return sweep;
}

/** The gate of `key` as it stands at `time`: failures forgotten and stale attempts let go. */
function gateOf(
  gates: Map<string, GateState>,
  rule: FailureGateRule,
  key: string,
  time: number,
): GateState {
  const id = `${rule.name}:${key}`;
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
