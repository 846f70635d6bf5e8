import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { startInProcess } from './support/start-in-process';
import { testDatabaseKinds } from './support/test-databases';
import { childProcessPath } from './support/test-env';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const TSX = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real entry point (as `npm start` does, from source) until it exits. */
function runServer(env: Record<string, string>): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [MAIN], {
      env: { PATH: childProcessPath, NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not exit: ${stdout}${stderr}`));
    }, 40_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const dirs: string[] = [];
function freshDataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'kegel-start-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * One start runs in a process of its own, as `npm start` does, to prove that the exit code and
 * the one line on stderr reach whoever started it. The others run main.ts in this process: the
 * same code from environment to exit, without seconds of loading the server each time.
 */
describe('starting the server with a wrong setting', () => {
  it('stops on a wrong PORT with one line naming it, exit code 1', async () => {
    const result = await runServer({ DATA_DIR: freshDataDir(), PORT: 'http' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'Invalid configuration:',
      '  PORT: must be a whole number from 1 to 65535 (got "http")',
    ]);
  });

  it('stops on a DATABASE_URL that is not a PostgreSQL URL', async () => {
    const result = await startInProcess({
      DATA_DIR: freshDataDir(),
      DATABASE_URL: 'localhost:5432',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^Invalid configuration:\n {2}DATABASE_URL: must be a PostgreSQL URL/,
    );
  });

  it('stops on a DATABASE_URL nobody answers at, with one line naming it and no password', async () => {
    const result = await startInProcess({
      DATA_DIR: freshDataDir(),
      DATABASE_URL: 'postgres://kegel:hunter2@127.0.0.1:1/kegel',
    });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^Invalid configuration: DATABASE_URL: cannot connect to postgres:\/\/kegel:\*\*\*@127\.0\.0\.1:1\/kegel: /,
    );
  });

  it('stops when PORT is already taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      // It gets as far as listening, so it opens its database: a migrated one is quicker.
      const database = await testDatabaseKinds[0]!.create();
      const result = await startInProcess({
        ...database.env,
        HOST: '127.0.0.1',
        PORT: String(port),
      }).finally(() => database.drop());
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        `Invalid configuration: PORT: ${port} is already in use on 127.0.0.1`,
      );
    } finally {
      blocker.close();
    }
  });
});

/** Starts the real entry point in a process of its own, waits until it listens, then stops it. */
async function startAndStop(env: Record<string, string>): Promise<Exit> {
  const child = spawn(TSX, [MAIN], {
    // Stopped at once: no balancer to drain for.
    env: { PATH: childProcessPath, LOG_LEVEL: 'warn', SHUTDOWN_DRAIN_SECONDS: '0', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const started = Date.now();
  while (!stdout.includes('is running at') && Date.now() - started < 40_000) {
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGTERM');
  const code = await exited;
  return { code, stdout, stderr };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('starting in development mode', () => {
  it('warns when it listens beyond loopback, and not when it stays on it', async () => {
    const database = await testDatabaseKinds[0]!.create();
    try {
      const open = await startAndStop({
        ...database.env,
        NODE_ENV: 'development',
        HOST: '0.0.0.0',
        PORT: String(await freePort()),
      });
      expect(open.stdout).toContain('is running at');
      expect(open.stderr).toContain(
        'Warning: development mode is listening on 0.0.0.0, beyond this machine',
      );

      const local = await startAndStop({
        ...database.env,
        NODE_ENV: 'development',
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
      });
      expect(local.stdout).toContain('is running at');
      expect(local.stderr).not.toContain('Warning');
    } finally {
      await database.drop();
    }
  }, 120_000);
});
