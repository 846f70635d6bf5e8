// The end-to-end part of `npm test`: Playwright's runner driving the system Chromium. It never
// downloads a browser. Without Chromium the part is skipped loudly, unless E2E=required.
// After the journeys, the server's log is searched: emailed links and Stripe's return carry
// codes and addresses in their query, and none may be written to a log.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const isRequired = process.env.E2E === 'required';

if (!existsSync(chromiumPath)) {
  const line = `END-TO-END TESTS SKIPPED: no Chromium at ${chromiumPath} (install Debian's chromium or set CHROMIUM_PATH)`;
  const bar = '!'.repeat(line.length);
  console.error(`\n${bar}\n${line}\n${bar}\n`);
  process.exit(isRequired ? 1 : 0);
}

const serverLog = fileURLToPath(new URL('../test-results/e2e-server.log', import.meta.url));
rmSync(serverLog, { force: true });

// Playwright's webServer runs `node scripts/start.mjs`, which builds what is not built yet, and
// writes its standard output to E2E_SERVER_LOG.
const run = spawnSync(
  'npx',
  ['playwright', 'test', '--config', 'apps/web/playwright.config.ts', ...process.argv.slice(2)],
  {
    stdio: 'inherit',
    env: { ...process.env, CHROMIUM_PATH: chromiumPath, E2E_SERVER_LOG: serverLog },
  },
);

const logProblem = checkServerLog(serverLog);
if (logProblem) console.error(`\nSERVER LOG CHECK FAILED: ${logProblem}\n`);
const status = run.status ?? 1;
process.exit(status !== 0 ? status : logProblem ? 1 : 0);

/**
 * What is wrong with the server's log, if anything: a `code=` or an `email=` / `newEmail=` query
 * parameter anywhere in it, or no request logged at all (then the search would prove nothing).
 */
function checkServerLog(file) {
  if (!existsSync(file)) return `${file} was not written`;
  const lines = readFileSync(file, 'utf8').split('\n');
  if (!lines.some((line) => line.includes('"incoming request"'))) {
    return `${file} logs no request (is LOG_LEVEL above info?)`;
  }
  const leaks = lines.filter((line) => /code=|[?&](?:new)?email=/i.test(line));
  if (leaks.length === 0) return null;
  const shown = leaks.slice(0, 5).map((line) => `  ${line.slice(0, 300)}`);
  return `${leaks.length} line(s) of ${file} hold a code or an email query parameter:\n${shown.join('\n')}`;
}
