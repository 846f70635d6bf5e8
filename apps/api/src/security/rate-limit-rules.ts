// The rules and answers every rate limiter shares (security/rate-limiter.ts explains the two
// kinds), and the arithmetic of the failure gates, the same in memory and in Redis.

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
export const STALE_ATTEMPT_MS = 30_000;

/** The wait owed after the last of `failures` failures. */
export function gateDelayMs(rule: FailureGateRule, failures: number): number {
  if (failures < rule.freeFailures) return 0;
  const doublings = Math.min(30, failures - rule.freeFailures);
  return Math.min(rule.maxDelaySeconds, rule.firstDelaySeconds * 2 ** doublings) * 1000;
}

/** How many attempts may be checked at once with `failures` failures on record. */
export function placesInGate(rule: FailureGateRule, failures: number): number {
  return Math.max(1, rule.freeFailures - failures);
}

/** Where `count` events stand against the rule; `isAllowed` tells if the last one was within it. */
export function rateLimitResult(
  rule: RateLimitRule,
  count: number,
  ttlMs: number,
): RateLimitResult {
  return {
    isAllowed: count <= rule.limit,
    count,
    retryAfterSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
  };
}
