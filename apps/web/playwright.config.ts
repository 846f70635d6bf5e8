import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { defineConfig, devices } from '@playwright/test';

/**
 * End-to-end journeys against the real server, started as `npm start` starts it (built assets,
 * a fresh DATA_DIR), in the system Chromium. Playwright never downloads a browser here.
 */
const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));
const port = Number(process.env.E2E_PORT ?? 4317);
const baseURL = `http://localhost:${port}`;

// Workers re-read this file; the first read picks the data directory and they inherit it.
process.env.E2E_DATA_DIR ??= mkdtempSync(path.join(tmpdir(), 'kegel-e2e-'));

// The server's standard output (its JSON log lines) goes to a file, which scripts/run-e2e.mjs
// searches after the run for codes and addresses that must never reach a log.
const serverLog =
  process.env.E2E_SERVER_LOG ?? path.join(repositoryRoot, 'test-results/e2e-server.log');
mkdirSync(path.dirname(serverLog), { recursive: true });

export default defineConfig({
  testDir: './e2e',
  outputDir: path.join(repositoryRoot, 'test-results/e2e'),
  // The journeys may run in parallel (each uses its own addresses; pass `--workers 2` on a bigger
  // machine), but on two cores the server and two browsers share them: each journey ran about 1.7
  // times slower, the whole run only a few percent faster, and a long journey hit its timeout.
  fullyParallel: false,
  workers: 1,
  forbidOnly: true,
  retries: 0,
  // Time limits are not what these journeys test (speed is the bench's, beside a reference), and
  // CI shares two cores between them, the unit tests and the server: a 25-s journey took over 30
  // s (Playwright's default) there. A journey that hangs still fails, after 90 s; an expectation
  // that waits for a page to show something waits up to 15 s (default 5) before it fails.
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [
    ['list'],
    ['html', { open: 'never', outputFolder: path.join(repositoryRoot, 'playwright-report') }],
  ],
  use: {
    baseURL,
    // A failed journey keeps its trace (actions, network, DOM snapshots). Without the trace's
    // screencast: encoding a frame per paint for every journey cost more CPU than any journey.
    trace: { mode: 'retain-on-failure', screenshots: false, snapshots: true, sources: true },
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        viewport: { width: 1440, height: 900 },
        launchOptions: {
          executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
          // This machine has no outside network: keep Chromium from trying to reach it.
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
          ],
        },
      },
    },
  ],
  webServer: {
    // Playwright runs the command in a shell, so the redirection is the shell's.
    command: `node scripts/start.mjs > ${JSON.stringify(serverLog)}`,
    cwd: repositoryRoot,
    url: `${baseURL}/api/health`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: process.env.E2E_DATA_DIR,
      PUBLIC_URL: baseURL,
      // Every request is logged (at info), as in production, so the log check sees them all.
      LOG_LEVEL: 'info',
      // Every journey signs in from 127.0.0.1; the per-address budgets are tested in the API suite.
      AUTH_REQUESTS_PER_MINUTE: '10000',
      AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR: '10000',
      SIGN_IN_PAGE_REQUESTS_PER_MINUTE: '10000',
      // Every journey registers from this one address.
      REGISTRATIONS_PER_ADDRESS_PER_HOUR: '10000',
    },
  },
});
