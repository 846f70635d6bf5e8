// argon2id with OWASP's minimum (19 MiB, 2 passes, 1 lane), stored as a PHC string so the
// parameters travel with each hash and can be raised later (`needsRehash`).
//
// Each hash holds 19 MiB for ~15-40 ms of CPU. A storm of logins must neither take the server's
// memory nor its cores from every other request:
// - at most `concurrency` hashes run at once and at most `maxQueue` wait; beyond that the caller
//   gets a `HashingBusyError` (503 with Retry-After) instead of the server running out of memory;
// - they run on worker threads of their own (@node-rs/argon2's synchronous calls), which on Linux
//   lower their own CPU priority (nice 10): the event loop, serving everyone else, wins a busy
//   core at once, and hashing still gets every cycle it leaves idle. Through libuv's shared
//   thread pool (the `argon2` package), hashes ran at the event loop's priority: under 200 logins
//   at once the profile's p97.5 rose four-fold (npm run bench, issue 16).
import { availableParallelism, platform } from 'node:os';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';

import { AppError } from '../errors';
import { createTurns } from './turns';

export const ARGON2_OPTIONS = {
  /** argon2id (Algorithm.Argon2id of @node-rs/argon2). */
  algorithm: 2,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

/**
 * What a login for an unknown account is checked against, so it costs what a real account costs:
 * the hash of a random password nobody knows, with today's parameters (a test keeps them so).
 * It is no secret: knowing it tells nothing about any account.
 */
export const DECOY_HASH =
  '$argon2id$v=19$m=19456,t=2,p=1$1Gvn4TKyaMgrUdkanpNB0g$KOViWsnm7FuBStG1pEHjs3y77JJQDUGLw2TN+VGGyN4';

/** How much nicer than the event loop a hashing thread is (Linux only, see below). */
const HASHING_NICENESS = 10;

export class HashingBusyError extends AppError {
  constructor() {
    super(503, 'The server is busy. Please try again in a moment.', 1);
    this.name = 'HashingBusyError';
  }
}

/**
 * The form a password is hashed in: NFKC, so the same password typed on a Mac (which sends
 * decomposed accents, NFD) and elsewhere (composed, NFC) is one password.
 */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

/** Whether a stored hash is weaker than (or not) today's argon2id parameters. */
export function needsRehash(hash: string): boolean {
  const match = /^\$argon2id\$v=19\$([^$]+)\$/.exec(hash);
  if (!match?.[1]) return true;
  const parameters = new Map(
    match[1].split(',').map((pair) => {
      const [key, value] = pair.split('=');
      return [key, Number(value)] as const;
    }),
  );
  return (
    (parameters.get('m') ?? 0) < ARGON2_OPTIONS.memoryCost ||
    (parameters.get('t') ?? 0) < ARGON2_OPTIONS.timeCost ||
    (parameters.get('p') ?? 0) < ARGON2_OPTIONS.parallelism
  );
}

export interface PasswordCheck {
  isValid: boolean;
  /** Valid, but stored in an older form (not normalised, weaker parameters): hash it anew. */
  needsRehash: boolean;
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<PasswordCheck>;
  /** Spends the same work as a real verify, for accounts that do not exist (no enumeration). */
  verifyAgainstNothing(password: string): Promise<false>;
  /** Hashes being computed and waiting for a slot (the metrics' hashing queue). */
  load(): { running: number; waiting: number };
  /** Ends the hashing threads (the server's close). */
  close(): Promise<void>;
}

type HashingJob =
  { kind: 'hash'; password: string } | { kind: 'verify'; hash: string; password: string };

// The hashing thread: plain JavaScript evaluated by Worker, so it runs the same from the bundle
// (dist/main.js) and from the TypeScript sources under the tests. On Linux a thread's nice value
// is its own (setpriority(2) with 0 names the calling thread); elsewhere it would be the whole
// process's, so it is left alone there. The step is relative: a thread starts with its creator's
// nice value, and a server started under \`nice\` must still see its hashing yield to its event loop.
const HASHING_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const argon2 = require(workerData.argon2Path);
if (workerData.niceness) {
  try {
    const os = require('node:os');
    os.setPriority(Math.min(19, os.getPriority() + workerData.niceness));
  } catch {}
}
parentPort.on('message', (job) => {
  try {
    const result =
      job.kind === 'hash'
        ? argon2.hashSync(job.password, workerData.options)
        : argon2.verifySync(job.hash, job.password);
    parentPort.postMessage({ result });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message) });
  }
});
`;

interface HashingThread {
  run(job: HashingJob): Promise<string | boolean>;
  /** It ended (terminated, or crashed): a new one takes its place. */
  isEnded(): boolean;
  end(): Promise<void>;
}

/** One thread, one hash at a time: its jobs are handed in by the slot it belongs to. */
function startHashingThread(): HashingThread {
  const worker = new Worker(HASHING_THREAD, {
    eval: true,
    workerData: {
      argon2Path: createRequire(import.meta.url).resolve('@node-rs/argon2'),
      options: ARGON2_OPTIONS,
      niceness: platform() === 'linux' ? HASHING_NICENESS : 0,
    },
  });
  // An idle hashing thread never keeps the process alive.
  worker.unref();
  let isEnded = false;
  let pending: { resolve(value: string | boolean): void; reject(error: Error): void } | undefined;
  const settle = () => {
    const current = pending;
    pending = undefined;
    return current;
  };
  worker.on('message', (answer: { result?: string | boolean; error?: string }) => {
    const current = settle();
    if (answer.error !== undefined) current?.reject(new Error(`argon2: ${answer.error}`));
    else current?.resolve(answer.result ?? false);
  });
  worker.on('error', (error) => settle()?.reject(error));
  worker.on('exit', () => {
    isEnded = true;
    settle()?.reject(new Error('the hashing thread ended'));
  });
  return {
    run(job) {
      return new Promise((resolve, reject) => {
        pending = { resolve, reject };
        worker.postMessage(job);
      });
    },
    isEnded: () => isEnded,
    end: async () => {
      await worker.terminate();
    },
  };
}

/** One hashing thread per core, and never fewer than two (one slow hash does not stall the rest). */
export function defaultHashingThreads(): number {
  return Math.max(2, availableParallelism());
}

export function createPasswordHasher(
  options: { concurrency?: number; maxQueue?: number } = {},
): PasswordHasher {
  const concurrency = options.concurrency ?? defaultHashingThreads();
  // One turn per thread: a job in its turn always finds an idle thread.
  const turns = createTurns({
    atOnce: concurrency,
    maxWaiting: options.maxQueue ?? 200,
    whenFull: () => new HashingBusyError(),
  });
  // Started on the first hash: a server (or a test) that never hashes starts no thread.
  let threads: HashingThread[] | undefined;
  const idle: number[] = [];

  function startThreads(): HashingThread[] {
    const started = Array.from({ length: concurrency }, startHashingThread);
    idle.push(...started.keys());
    return started;
  }

  function withThread<T extends string | boolean>(job: HashingJob): Promise<T> {
    return turns.take(async () => {
      threads ??= startThreads();
      const slot = idle.pop();
      if (slot === undefined) throw new Error('a hashing turn found no idle thread');
      try {
        let thread = threads[slot];
        if (!thread || thread.isEnded()) thread = threads[slot] = startHashingThread();
        return (await thread.run(job)) as T;
      } finally {
        idle.push(slot);
      }
    });
  }

  function hash(password: string): Promise<string> {
    return withThread<string>({ kind: 'hash', password: normalizePassword(password) });
  }
  const matches = (stored: string, password: string) =>
    withThread<boolean>({ kind: 'verify', hash: stored, password });

  return {
    hash,
    async verify(stored, password) {
      const normalized = normalizePassword(password);
      if (await matches(stored, normalized)) {
        return { isValid: true, needsRehash: needsRehash(stored) };
      }
      // Hashes made before passwords were normalised hold the password as it was typed.
      if (normalized !== password && (await matches(stored, password))) {
        return { isValid: true, needsRehash: true };
      }
      return { isValid: false, needsRehash: false };
    },
    async verifyAgainstNothing(password) {
      const normalized = normalizePassword(password);
      await matches(DECOY_HASH, normalized);
      // The same second try a real account gets, or the time would tell the two apart.
      if (normalized !== password) await matches(DECOY_HASH, password);
      return false;
    },
    load: () => turns.load(),
    async close() {
      await Promise.all((threads ?? []).map((thread) => thread.end()));
    },
  };
}
