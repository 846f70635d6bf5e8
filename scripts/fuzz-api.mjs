// `node scripts/fuzz-api.mjs [requests] [seed]`: the API's schema-driven fuzz
// (apps/api/test/fuzz) on its own, longer than CI's 2,000 requests if asked (10,000 by default),
// printing the status table, the requests by probe and the failures grouped by kind. The same seed
// sends the same requests. Wants what the API tests want (TEST_DATABASE_URL is not needed: the
// fuzz runs on PGlite).
import { spawn } from 'node:child_process';

const requests = Number(process.argv[2] ?? 10_000);
const seed = process.argv[3];
if (!Number.isInteger(requests) || requests < 1) {
  console.error('usage: node scripts/fuzz-api.mjs [requests] [seed]');
  process.exit(2);
}

const vitest = spawn(
  'npx',
  ['vitest', 'run', '--project', 'api', 'apps/api/test/fuzz/api-fuzz.test.ts'],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      FUZZ_REQUESTS: String(requests),
      // The CI run's 120 s, or about 20 requests a second on a loaded machine if that is longer.
      FUZZ_BUDGET_SECONDS: String(Math.max(120, Math.ceil(requests / 20))),
      ...(seed === undefined ? {} : { FUZZ_SEED: seed }),
    },
  },
);
vitest.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
