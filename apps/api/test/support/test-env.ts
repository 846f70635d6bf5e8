/** The test run's own settings; the one place tests read the environment. */
export const testEnv = {
  /** A PostgreSQL server to run the integration tests on too; each run gets its own database. */
  postgresUrl: process.env.TEST_DATABASE_URL || undefined,
  /** A Redis server for the shared rate-limit tests. */
  redisUrl: process.env.TEST_REDIS_URL || undefined,
};

/** The PATH a child process needs to find its tools. */
export const childProcessPath = process.env.PATH ?? '';
