// PGlite's files may be opened by one process only; a second server on the same directory would
// corrupt it. A lock file beside the directory (`<dir>.lock`; PGlite's directory holds
// PostgreSQL's own files only) makes the second one stop with a clear message instead.
//
// A lock must not outlive its process: after kill -9 or an out-of-memory kill nothing removes the
// file, and in a container the next server often gets the very same pid, so a bare pid would look
// alive forever. The file therefore names its holder by pid, host, boot id
// (/proc/sys/kernel/random/boot_id) and the process's start time (/proc/<pid>/stat, field 22):
// the holder is gone if the machine booted since, or if that pid is not running or started at
// another time. Another host's pids mean nothing here (a shared volume, or the next container of
// a killed one, which gets a new host name): the holder touches the file every 10 s, and a lock
// from another host left untouched for 30 s is gone.
// Not an OS lock because Node offers none (flock, fcntl) without a native addon. Without /proc
// (macOS) only the pid is checked.
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

const HEARTBEAT_MS = 10_000;
const ANOTHER_HOST_STALE_MS = 30_000;

interface LockHolder {
  pid: number;
  /** Missing in the bare-pid files of earlier versions. */
  host?: string;
  bootId?: string;
  startTime?: string;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly lockFile: string,
    readonly holder: LockHolder,
  ) {
    const isHere = holder.host === undefined || holder.host === hostname();
    const command = isHere ? commandLineOf(holder.pid) : undefined;
    const who = `process ${holder.pid}${command ? ` (${command})` : ''}${isHere ? '' : ` on host ${holder.host}`}`;
    super(
      `${dataDir} is in use by another server: ${who} holds ${lockFile}. Stop that server first; ` +
        `delete ${lockFile} only if ${isHere ? `process ${holder.pid}` : 'that server'} is gone.`,
    );
    this.name = 'DataDirLockedError';
  }
}

/** Takes the directory's lock, or throws DataDirLockedError; returns the release. */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(path.dirname(dataDir), { recursive: true });
  const lockFile = `${dataDir}.lock`;
  const self = describeProcess(process.pid);
  const content = JSON.stringify(self);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (createWithContent(lockFile, content)) {
      const heartbeat = setInterval(() => {
        try {
          const now = new Date();
          utimesSync(lockFile, now, now);
        } catch {
          // Gone or unwritable for a moment: the next beat tries again.
        }
      }, HEARTBEAT_MS);
      heartbeat.unref();
      return () => {
        clearInterval(heartbeat);
        // Only our own: a lock another server took over (judged ours stale) stays its lock.
        if (readIfExists(lockFile) === content) rmSync(lockFile, { force: true });
      };
    }
    const existing = readIfExists(lockFile);
    const untouchedMs = untouchedForMs(lockFile);
    if (existing === undefined || untouchedMs === undefined) continue;
    const holder = parseHolder(existing);
    if (holder && isHolderAlive(holder, self, untouchedMs))
      throw new DataDirLockedError(dataDir, lockFile, holder);
    rmSync(lockFile, { force: true });
  }
  throw new Error(`Could not lock ${dataDir}: ${lockFile} keeps changing`);
}

/**
 * Creates the file with its whole content at once, or returns false when it exists: written to a
 * file of our own first and then hard-linked into place, so nobody ever reads it half-written (an
 * empty lock would look stale and be taken over).
 */
function createWithContent(file: string, content: string): boolean {
  const draft = `${file}.${process.pid}.${Date.now()}.tmp`;
  const fd = openSync(draft, 'wx');
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(draft, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(draft, { force: true });
  }
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** A holder from the file's text; undefined (stale) when it names none. */
function parseHolder(text: string): LockHolder | undefined {
  const bare = Number(text.trim());
  if (Number.isInteger(bare) && bare > 0) return { pid: bare };
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    const { pid } = parsed;
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
    return {
      pid,
      host: typeof parsed.host === 'string' ? parsed.host : undefined,
      bootId: typeof parsed.bootId === 'string' ? parsed.bootId : undefined,
      startTime: typeof parsed.startTime === 'string' ? parsed.startTime : undefined,
    };
  } catch {
    return undefined;
  }
}

/** How long since the lock file was last touched; undefined when it is gone. */
function untouchedForMs(file: string): number | undefined {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function isHolderAlive(holder: LockHolder, self: LockHolder, untouchedMs: number): boolean {
  // Another host's pids and boots mean nothing here; its heartbeat does.
  if (holder.host !== undefined && holder.host !== self.host) {
    return untouchedMs < ANOTHER_HOST_STALE_MS;
  }
  // Rebooted since: no process of that boot runs any more.
  if (holder.bootId && self.bootId && holder.bootId !== self.bootId) return false;
  if (!isProcessRunning(holder.pid)) return false;
  if (holder.startTime === undefined) {
    // A bare pid (an earlier version wrote it): this process never wrote one, so if it names us,
    // it was written by an earlier process that had our pid. Another live pid cannot be told.
    return holder.pid !== process.pid;
  }
  const startTime = startTimeOf(holder.pid);
  // Unreadable (/proc hidden, or none): err on the side of the running process.
  return startTime === undefined || startTime === holder.startTime;
}

function describeProcess(pid: number): LockHolder {
  return {
    pid,
    host: hostname(),
    bootId: readProc('/proc/sys/kernel/random/boot_id')?.trim(),
    startTime: startTimeOf(pid),
  };
}

/** Field 22 of /proc/<pid>/stat, in clock ticks since boot; the command name (field 2) may hold spaces. */
function startTimeOf(pid: number): string | undefined {
  const stat = readProc(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

/** What the holder runs, to help a person recognise it (`node dist/main.js`). */
function commandLineOf(pid: number): string | undefined {
  const cmdline = readProc(`/proc/${pid}/cmdline`);
  if (!cmdline) return undefined;
  const command = cmdline.split('\0').filter(Boolean).join(' ');
  return command.length > 120 ? `${command.slice(0, 117)}...` : command || undefined;
}

function readProc(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
