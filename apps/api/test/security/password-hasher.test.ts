import { describe, expect, it } from 'vitest';

import { createPasswordHasher, HashingBusyError } from '../../src/security/password-hasher';

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
  });
});
