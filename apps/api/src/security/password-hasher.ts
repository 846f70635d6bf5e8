// argon2id with OWASP's minimum (19 MiB, 2 passes, 1 lane), stored as a PHC string so the
// parameters travel with each hash and can be raised later (`needsRehash`).
//
// Each hash holds 19 MiB for ~40 ms. A storm of logins must not turn into a storm of those, so
// at most `concurrency` run at once and at most `maxQueue` wait; beyond that the caller gets a
// `HashingBusyError` (answered 503 with Retry-After) instead of the server running out of memory.
import { availableParallelism } from 'node:os';

import argon2 from 'argon2';

import { AppError } from '../errors';

export const ARGON2_OPTIONS = {
  type: argon2.argon2id,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

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
}

export function createPasswordHasher(
  options: { concurrency?: number; maxQueue?: number } = {},
): PasswordHasher {
  const concurrency = options.concurrency ?? Math.max(2, availableParallelism());
  const maxQueue = options.maxQueue ?? 200;
  let active = 0;
  const queue: Array<() => void> = [];

  async function withSlot<T>(work: () => Promise<T>): Promise<T> {
    if (active >= concurrency) {
      if (queue.length >= maxQueue) throw new HashingBusyError();
      await new Promise<void>((resolve) => queue.push(resolve));
    } else {
      active += 1;
    }
    try {
      return await work();
    } finally {
      const next = queue.shift();
      if (next) next();
      else active -= 1;
    }
  }

  // A real hash of a random password: verifying against it costs what a real account costs.
  const decoyHash = argon2.hash(crypto.randomUUID(), ARGON2_OPTIONS);

  return {
    hash: (password) => withSlot(() => argon2.hash(normalizePassword(password), ARGON2_OPTIONS)),
    async verify(hash, password) {
      const normalized = normalizePassword(password);
      if (await withSlot(() => argon2.verify(hash, normalized))) {
        return { isValid: true, needsRehash: argon2.needsRehash(hash, ARGON2_OPTIONS) };
      }
      // Hashes made before passwords were normalised hold the password as it was typed.
      if (normalized !== password && (await withSlot(() => argon2.verify(hash, password)))) {
        return { isValid: true, needsRehash: true };
      }
      return { isValid: false, needsRehash: false };
    },
    async verifyAgainstNothing(password) {
      const decoy = await decoyHash;
      const normalized = normalizePassword(password);
      await withSlot(() => argon2.verify(decoy, normalized));
      // The same second try a real account gets, or the time would tell the two apart.
      if (normalized !== password) await withSlot(() => argon2.verify(decoy, password));
      return false;
    },
    load: () => ({ running: active, waiting: queue.length }),
  };
}
