// A server of a journey's own, started as playwright.config.ts's webServer starts one (`node
// scripts/start.mjs`, its own DATA_DIR and PORT), for a journey that must stop it meanwhile: the
// embedded database (PGlite) serves one process, and `npm run operator` is a process of its own.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repositoryRoot = fileURLToPath(new URL('../../../..', import.meta.url));

export interface OwnServer {
  url: string;
  /** Starts the server (again), on the same port and data. */
  start(): Promise<void>;
  /** Stops it and waits for its process to end (the database is then free). */
  stop(): Promise<void>;
  /** Runs one of the server's commands (apps/api/dist/<script>.js) with the server's settings. */
  runCommand(script: string, args: string[]): { status: number | null; output: string };
}

export function ownServer(port: number): OwnServer {
  const url = `http://localhost:${port}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kegel-e2e-own-'));
  const logDir = path.join(repositoryRoot, 'test-results');
  mkdirSync(logDir, { recursive: true });
  // Its settings only, none of this process's: as a server started on its own would have.
  const env: NodeJS.ProcessEnv = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    PUBLIC_URL: url,
    LOG_LEVEL: 'warn',
    AUTH_REQUESTS_PER_MINUTE: '10000',
    AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR: '10000',
    SIGN_IN_PAGE_REQUESTS_PER_MINUTE: '10000',
    REGISTRATIONS_PER_ADDRESS_PER_HOUR: '10000',
  };
  let child: ChildProcess | null = null;

  async function start(): Promise<void> {
    const log = createWriteStream(path.join(logDir, `e2e-own-server-${port}.log`), { flags: 'a' });
    child = spawn(process.execPath, ['scripts/start.mjs'], {
      cwd: repositoryRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
      try {
        if ((await fetch(`${url}/api/health`)).ok) return;
      } catch {
        // Not listening yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`the server did not answer at ${url} within 2 minutes`);
  }

  async function stop(): Promise<void> {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  }

  function runCommand(script: string, args: string[]) {
    const result = spawnSync(
      process.execPath,
      ['--enable-source-maps', `apps/api/dist/${script}.js`, ...args],
      { cwd: repositoryRoot, env, encoding: 'utf8' },
    );
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  }

  return { url, start, stop, runCommand };
}
