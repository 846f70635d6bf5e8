// The fuzz run's own settings, for a longer run than CI's (scripts/fuzz-api.mjs sets
// them). Read here rather than in support/test-env.ts only because that file is not this change's
// to edit; they belong there.
/* eslint-disable no-restricted-properties -- the test run's own settings, as in test-env.ts */
const setting = (name: string) => process.env[name] || undefined;

/** The floor: a CI run that sends fewer requests fails. */
export const MINIMUM_REQUESTS = 2_000;

export const fuzzSettings = {
  /** How many requests to send (never fewer than the floor). */
  requestCount: Math.max(Number(setting('FUZZ_REQUESTS') ?? MINIMUM_REQUESTS), MINIMUM_REQUESTS),
  /** A run's seed: random unless given, printed with every report so a failure can be replayed. */
  seed: Number(setting('FUZZ_SEED') ?? Math.floor(Math.random() * 2 ** 31)),
  /** No request starts after this; a run cut short by it fails its count. */
  budgetSeconds: Number(setting('FUZZ_BUDGET_SECONDS') ?? 120),
};
