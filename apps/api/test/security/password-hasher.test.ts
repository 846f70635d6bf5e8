import { readdirSync, readFileSync } from 'node:fs';
import { getPriority, platform } from 'node:os';

import { describe, expect, it } from 'vitest';

import {
  createPasswordHasher,
  DECOY_HASH,
  HashingBusyError,
  needsRehash,
} from '../../src/security/password-hasher';

describe('password hasher', () => {
  it('verifies what it hashed and refuses anything else', async () => {
    const hasher = createPasswordHasher();
    const hash = await hasher.hash('correct horse');
    expect(await hasher.verify(hash, 'correct horse')).toEqual({
      isValid: true,
      needsRehash: false,
    });
    expect((await hasher.verify(hash, 'correct horse ')).isValid).toBe(false);
    expect(await hasher.verifyAgainstNothing('correct horse')).toBe(false);
    await hasher.close();
  });

  it('bounds the work: beyond the running and queued slots it refuses with 503 "busy"', async () => {
    const hasher = createPasswordHasher({ concurrency: 1, maxQueue: 1 });
    const results = await Promise.allSettled([
      hasher.hash('one password'),
      hasher.hash('two password'),
      hasher.hash('three password'),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    const refusal = (results[2] as PromiseRejectedResult).reason as HashingBusyError;
    expect(refusal).toBeInstanceOf(HashingBusyError);
    expect(refusal.statusCode).toBe(503);
    expect(refusal.retryAfterSeconds).toBe(1);
    // Slots are given back: it works again once the storm has passed.
    await expect(hasher.hash('four password')).resolves.toMatch(/^\$argon2id\$/);
    await hasher.close();
  });
});

describe('password hasher threads and parameters', () => {
  it('asks for a rehash of a hash weaker than today, in any parameter order', async () => {
    const hasher = createPasswordHasher();
    try {
      expect(needsRehash(await hasher.hash('correct horse'))).toBe(false);
    } finally {
      await hasher.close();
    }
    expect(needsRehash('$argon2id$v=19$m=19456,p=1,t=2$c2FsdHNhbHQ$aGFzaA')).toBe(false);
    expect(needsRehash('$argon2id$v=19$m=4096,t=3,p=1$c2FsdHNhbHQ$aGFzaA')).toBe(true);
    expect(needsRehash('$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA')).toBe(true);
    expect(needsRehash('$2b$10$abcdefghijklmnopqrstuv')).toBe(true);
    // The decoy unknown accounts are checked against costs what a real account costs.
    expect(needsRehash(DECOY_HASH)).toBe(false);
  });

  // Nice values stop at 19: a process already started that nice leaves nothing to lower.
  it.runIf(platform() === 'linux' && getPriority() < 19)(
    'hashes on threads of lower CPU priority than the event loop (nice + 10)',
    async () => {
      const niceOf = (tid: string | number) => {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        // Fields after the command name (in parentheses); nice is the 19th field of the line.
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      };
      const niceOfThreads = () => readdirSync('/proc/self/task').map(niceOf);
      // CI may run the whole suite under `nice`: the step is counted from where this thread is.
      const eventLoopNice = getPriority();
      const hashingNice = Math.min(19, eventLoopNice + 10);
      const before = niceOfThreads().filter((nice) => nice === hashingNice).length;
      const hasher = createPasswordHasher({ concurrency: 2 });
      try {
        await Promise.all([hasher.hash('one password'), hasher.hash('two password')]);
        expect(niceOfThreads().filter((nice) => nice === hashingNice).length).toBe(before + 2);
        // The event loop's own thread keeps its priority.
        expect(getPriority()).toBe(eventLoopNice);
        // (Named by its id, the process's: thread ids wrap, so a listing's order proves nothing.)
        expect(niceOf(process.pid)).toBe(eventLoopNice);
      } finally {
        await hasher.close();
      }
    },
  );
});
