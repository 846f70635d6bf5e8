/** The test run's own settings; the one place tests read the environment. */
export const testEnv = {
  /** A PostgreSQL server to run the integration tests on too; each run gets its own database. */
  postgresUrl: process.env.TEST_DATABASE_URL || undefined,
  /** A Redis server for the shared rate-limit tests. */
  redisUrl: process.env.TEST_REDIS_URL || undefined,
  /** CLUSTER=required: the cluster test fails, rather than skips, without PostgreSQL, Redis or HAProxy. */
  clusterRequired: process.env.CLUSTER === 'required',
  /** The API fuzz's request count, seed and time budget, for a longer run than CI's (scripts/fuzz-api.mjs). */
  fuzzRequests: process.env.FUZZ_REQUESTS || undefined,
  fuzzSeed: process.env.FUZZ_SEED || undefined,
  fuzzBudgetSeconds: process.env.FUZZ_BUDGET_SECONDS || undefined,
};

/** The PATH a child process needs to find its tools. */
export const childProcessPath = process.env.PATH ?? '';

/**
 * Runs `work` with process.env replaced by exactly `env`, as a process started with that
 * environment would see it, so a setting exported in the developer's shell cannot leak in. The
 * test run's own environment is back once `work` settles.
 */
export async function withExactEnvironment<T>(
  env: Record<string, string>,
  work: () => Promise<T>,
): Promise<T> {
  const own = process.env;
  process.env = { ...env };
  try {
    return await work();
  } finally {
    process.env = own;
  }
}
