import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { DataDirLockedError, lockDataDir } from '../src/db/data-dir-lock';
import { startInProcess } from './support/start-in-process';
import { childProcessPath } from './support/test-env';

const HOLDER = fileURLToPath(new URL('./support/hold-data-dir-lock.ts', import.meta.url));

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. */
function startTimeOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

const isLinux = existsSync('/proc/self/stat');

/**
 * The embedded database's lock (`<DATA_DIR>/pglite.lock`): one server per directory, and a lock
 * left by a server that died (kill -9, out of memory) does not keep the next one from starting,
 * even when, as in a container, the next one gets the same pid.
 */
describe.runIf(isLinux)('the lock of the embedded database directory', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  });

  /** A DATA_DIR (`root`) and the PGlite directory in it that the server locks. */
  function freshDataDir(): { root: string; dataDir: string; lockFile: string } {
    const root = mkdtempSync(path.join(tmpdir(), 'kegel-lock-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const dataDir = path.join(root, 'pglite');
    return { root, dataDir, lockFile: `${dataDir}.lock` };
  }

  const bootId = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

  function writeLock(lockFile: string, holder: Record<string, unknown>): void {
    writeFileSync(
      lockFile,
      JSON.stringify({
        pid: process.pid,
        host: hostname(),
        bootId: bootId(),
        startTime: startTimeOf(process.pid),
        ...holder,
      }),
    );
  }

  function takes(dataDir: string): void {
    const unlock = lockDataDir(dataDir);
    cleanups.push(unlock);
  }

  function spawnAndTrack(command: string, args: string[]): ChildProcess {
    const child = spawn(command, args, { env: { PATH: childProcessPath } });
    cleanups.push(() => child.kill('SIGKILL'));
    return child;
  }

  /** A server in another process that takes the lock; resolves with its pid once it has it. */
  async function anotherServerHolding(dataDir: string): Promise<ChildProcess> {
    const child = spawnAndTrack(process.execPath, ['--import', 'tsx', HOLDER, dataDir]);
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('locked')) resolve();
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('exit', () => reject(new Error(`the holder exited: ${output}`)));
    });
    return child;
  }

  it('takes over the bare pid an earlier server left, when this process got the same pid', () => {
    const { dataDir, lockFile } = freshDataDir();
    writeFileSync(lockFile, String(process.pid));
    takes(dataDir);
    expect(JSON.parse(readFileSync(lockFile, 'utf8'))).toMatchObject({ pid: process.pid });
  });

  it('takes over a lock of this pid written by an earlier process (another start time)', () => {
    const { dataDir, lockFile } = freshDataDir();
    writeLock(lockFile, { startTime: String(Number(startTimeOf(process.pid)) - 1) });
    takes(dataDir);
    expect(JSON.parse(readFileSync(lockFile, 'utf8'))).toMatchObject({
      startTime: startTimeOf(process.pid),
    });
  });

  it('takes over a lock written before the machine restarted (another boot id)', () => {
    const { dataDir, lockFile } = freshDataDir();
    writeLock(lockFile, { bootId: '00000000-0000-4000-8000-000000000000' });
    takes(dataDir);
    expect(JSON.parse(readFileSync(lockFile, 'utf8'))).toMatchObject({ bootId: bootId() });
  });

  it('takes over a lock whose pid now belongs to an unrelated process', async () => {
    const { dataDir, lockFile } = freshDataDir();
    const unrelated = spawnAndTrack('sleep', ['30']);
    await new Promise((resolve) => unrelated.once('spawn', resolve));
    writeLock(lockFile, { pid: unrelated.pid, startTime: '1' });
    takes(dataDir);
  });

  it('refuses while another server holds it, naming that process and how to recover, and takes it once that process was killed', async () => {
    const { root, dataDir, lockFile } = freshDataDir();
    const holder = await anotherServerHolding(dataDir);

    let refusal: unknown;
    try {
      takes(dataDir);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DataDirLockedError);
    const message = (refusal as Error).message;
    expect(message).toContain(`process ${holder.pid}`);
    expect(message).toContain(lockFile);
    expect(message).toMatch(/Stop that server.*delete .* only if .* is gone/);
    expect(message).not.toContain('\n');
    // What a person starting the server reads: that line, naming the variable, and exit code 1.
    const start = await startInProcess({ DATA_DIR: root });
    expect(start.code).toBe(1);
    expect(start.stderr).toBe(`Invalid configuration: DATA_DIR: ${message}\n`);

    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    takes(dataDir);
  });

  it('refuses a lock another machine keeps touching (a shared volume), where its pid says nothing', () => {
    const { dataDir, lockFile } = freshDataDir();
    writeLock(lockFile, { host: 'another-host', pid: 2 ** 22 + 1 });
    expect(() => takes(dataDir)).toThrow(/another-host/);
  });

  it('takes over a lock of another host that nobody touched for a while (a killed container)', () => {
    // The next container of a killed one has a new host name: the old lock's heartbeat stopped.
    const { dataDir, lockFile } = freshDataDir();
    writeLock(lockFile, { host: 'old-container-id', pid: 1 });
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(lockFile, minuteAgo, minuteAgo);
    takes(dataDir);
  });

  it('removes its lock when released, but not one that another server has taken since', () => {
    const { dataDir, lockFile } = freshDataDir();
    lockDataDir(dataDir)();
    expect(existsSync(lockFile)).toBe(false);

    const unlock = lockDataDir(dataDir);
    writeLock(lockFile, { startTime: '1' });
    unlock();
    expect(existsSync(lockFile)).toBe(true);
  });
});
