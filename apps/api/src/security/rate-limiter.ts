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
//
// The limiters live by role: the rules and the gates' arithmetic (rate-limit-rules.ts), the
// limiter in memory (memory-rate-limiter.ts), the counters in Redis (redis-counters.ts) and the
// Redis limiter with its fallback to memory (redis-rate-limiter.ts). Others import them from here.
export { createMemoryRateLimiter } from './memory-rate-limiter';
export {
  type FailureGateRule,
  type GateAnswer,
  type GateOutcome,
  gateDelayMs,
  type RateLimiter,
  type RateLimitResult,
  type RateLimitRule,
} from './rate-limit-rules';
export { redisKeyName } from './redis-counters';
export { createRedisRateLimiter, type RateLimiterLog } from './redis-rate-limiter';
