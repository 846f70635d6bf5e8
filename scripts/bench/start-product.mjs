// The built product as `npm start` runs it, on a data folder of its own, for the browser benches
// (lighthouse.mjs, interactions.mjs): started, waited for, stopped and cleaned up.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Starts `npm start`'s script on a free data folder; resolves once /api/health answers. */
export async function startProduct(port = process.env.PORT ?? '4601') {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kegel-lighthouse-'));
  const server = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    // No balancer in front of it: its stop (SIGTERM) need not drain.
    env: { ...process.env, PORT: port, DATA_DIR: dataDir, SHUTDOWN_DRAIN_SECONDS: '0' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://localhost:${port}`;
  const startedAt = Date.now();
  while (!(await isServing(url))) {
    if (server.exitCode !== null) throw new Error(`the product stopped (exit ${server.exitCode})`);
    if (Date.now() - startedAt > 300_000) throw new Error(`${url} did not answer in 5 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return {
    url,
    async stop() {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function isServing(url) {
  try {
    return (await fetch(`${url}/api/health`)).ok;
  } catch {
    return false;
  }
}
