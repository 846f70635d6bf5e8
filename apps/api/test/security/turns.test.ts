import { describe, expect, it } from 'vitest';

import { createTurns } from '../../src/security/turns';

/** A piece of work that runs until released, recording when it started. */
function heldWork(started: string[], name: string) {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    work: async () => {
      started.push(name);
      await released;
      return name;
    },
    release: () => release(),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('turns', () => {
  it('runs at most `atOnce` pieces, then the waiting ones in the order they came', async () => {
    const turns = createTurns({ atOnce: 2, maxWaiting: 10, whenFull: () => new Error('full') });
    const started: string[] = [];
    const pieces = ['a', 'b', 'c', 'd'].map((name) => heldWork(started, name));
    const results = pieces.map((piece) => turns.take(piece.work));
    await settle();
    expect(started).toEqual(['a', 'b']);
    expect(turns.load()).toEqual({ running: 2, waiting: 2 });

    pieces[1]?.release();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    pieces[0]?.release();
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    expect(turns.load()).toEqual({ running: 2, waiting: 0 });

    pieces[2]?.release();
    pieces[3]?.release();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
    expect(turns.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses a newcomer when the line is full, and gives the turn of a failed piece back', async () => {
    const turns = createTurns({ atOnce: 1, maxWaiting: 1, whenFull: () => new Error('full') });
    const started: string[] = [];
    const first = heldWork(started, 'first');
    const running = turns.take(first.work);
    const waiting = turns.take(() => Promise.reject(new Error('it failed')));
    await expect(turns.take(() => Promise.resolve('third'))).rejects.toThrow('full');

    first.release();
    await expect(running).resolves.toBe('first');
    await expect(waiting).rejects.toThrow('it failed');
    expect(turns.load()).toEqual({ running: 0, waiting: 0 });
    await expect(turns.take(() => Promise.resolve('later'))).resolves.toBe('later');
  });

  it('drops a waiting piece whose caller left, unrun, and hands the turn to the next', async () => {
    const turns = createTurns({
      atOnce: 1,
      maxWaiting: 10,
      whenFull: () => new Error('full'),
      whenAbandoned: () => new Error('caller left'),
    });
    const started: string[] = [];
    const first = heldWork(started, 'first');
    const gone = heldWork(started, 'gone');
    const last = heldWork(started, 'last');
    const callerLeaves = new AbortController();
    const running = turns.take(first.work);
    const abandoned = turns.take(gone.work, callerLeaves.signal);
    const waiting = turns.take(last.work, new AbortController().signal);
    await settle();
    expect(turns.load()).toEqual({ running: 1, waiting: 2 });

    callerLeaves.abort();
    await expect(abandoned).rejects.toThrow('caller left');
    expect(turns.load()).toEqual({ running: 1, waiting: 1 });
    first.release();
    await settle();
    expect(started).toEqual(['first', 'last']);
    last.release();
    expect(await Promise.all([running, waiting])).toEqual(['first', 'last']);
    expect(turns.load()).toEqual({ running: 0, waiting: 0 });
    // One already gone is not queued at all, even with turns free.
    await expect(turns.take(gone.work, AbortSignal.abort())).rejects.toThrow('caller left');
    expect(started).toEqual(['first', 'last']);
  });
});
