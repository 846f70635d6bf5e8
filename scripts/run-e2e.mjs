// The end-to-end part of `npm test`: Playwright's runner driving the system Chromium. It never
// downloads a browser. Without Chromium the part is skipped loudly, unless E2E=required.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const isRequired = process.env.E2E === 'required';

if (!existsSync(chromiumPath)) {
  const line = `END-TO-END TESTS SKIPPED: no Chromium at ${chromiumPath} (install Debian's chromium or set CHROMIUM_PATH)`;
  const bar = '!'.repeat(line.length);
  console.error(`\n${bar}\n${line}\n${bar}\n`);
  process.exit(isRequired ? 1 : 0);
}

// Playwright's webServer runs `node scripts/start.mjs`, which builds what is not built yet.
const run = spawnSync(
  'npx',
  ['playwright', 'test', '--config', 'apps/web/playwright.config.ts', ...process.argv.slice(2)],
  {
    stdio: 'inherit',
    env: { ...process.env, CHROMIUM_PATH: chromiumPath },
  },
);
process.exit(run.status ?? 1);
