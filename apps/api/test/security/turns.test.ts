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
});
