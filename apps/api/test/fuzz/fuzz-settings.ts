// The fuzz run's own settings: CI's floor, or a longer run (scripts/fuzz-api.mjs sets them).
import { testEnv } from '../support/test-env';

/** The floor: a CI run that sends fewer requests fails. */
export const MINIMUM_REQUESTS = 2_000;

export const fuzzSettings = {
  /** How many requests to send (never fewer than the floor). */
  requestCount: Math.max(Number(testEnv.fuzzRequests ?? MINIMUM_REQUESTS), MINIMUM_REQUESTS),
  /** A run's seed: random unless given, printed with every report so a failure can be replayed. */
  seed: Number(testEnv.fuzzSeed ?? Math.floor(Math.random() * 2 ** 31)),
  /** No request starts after this; a run cut short by it fails its count. */
  budgetSeconds: Number(testEnv.fuzzBudgetSeconds ?? 120),
};
