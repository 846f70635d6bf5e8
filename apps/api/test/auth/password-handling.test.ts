import { hashSync } from '@node-rs/argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  ARGON2_OPTIONS,
  createPasswordHasher,
  type PasswordHasher,
} from '../../src/security/password-hasher';
import { login, post, register } from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

/** The real hasher, counting the hashes it computes. */
function countingHasher(): PasswordHasher & { hashes: number } {
  const real = createPasswordHasher();
  const counting = {
    hashes: 0,
    hash(password: string) {
      counting.hashes += 1;
      return real.hash(password);
    },
    verify: (hash: string, password: string) => real.verify(hash, password),
    verifyAgainstNothing: (password: string) => real.verifyAgainstNothing(password),
    load: () => real.load(),
    close: () => real.close(),
  };
  return counting;
}

describe.each(testDatabaseKinds)('password handling on $name', (kind) => {
  let server: TestServer;
  const hasher = countingHasher();
  beforeAll(async () => {
    server = await startTestServer(kind, { passwordHasher: hasher });
  });
  afterAll(async () => {
    await server.close();
    await hasher.close();
  });

  const composed = 'Crème brûlée à volonté'.normalize('NFC');
  const decomposed = composed.normalize('NFD');

  it('takes the same password typed on a Mac (NFD) and elsewhere (NFC)', async () => {
    expect(decomposed).not.toBe(composed);
    const email = uniqueEmail('unicode');
    await register(server.app, email, composed);
    await login(server.app, email, decomposed);
    await login(server.app, email, composed);
  });

  it('still takes a password hashed before normalisation, and rehashes it', async () => {
    const email = uniqueEmail('unicode-old');
    await register(server.app, email, 'placeholder password');
    const { db } = server.app.database;
    const oldHash = hashSync(decomposed, ARGON2_OPTIONS);
    await db
      .updateTable('users')
      .set({ passwordHash: oldHash })
      .where('email', '=', email)
      .execute();

    await login(server.app, email, decomposed);
    const row = await db
      .selectFrom('users')
      .select('passwordHash')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(row.passwordHash).not.toBe(oldHash);
    await login(server.app, email, composed);
  });

  it('counts the length of a new password as it is stored (NFKC)', async () => {
    const fourAccents = 'éèêë'.normalize('NFD');
    expect(fourAccents.length).toBe(8);
    const response = await post(server.app, '/auth/local/register/email', {
      email: uniqueEmail('short-nfd'),
      password: fourAccents,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ message: ['Password is too short'] });
  });

  it('checks the cheap things before spending a hash', async () => {
    const email = uniqueEmail('cheap');
    await register(server.app, email, 'correct horse');

    const before = hasher.hashes;
    const taken = await post(server.app, '/auth/local/register/email', {
      email,
      password: 'another password',
    });
    expect(taken.statusCode).toBe(409);
    const bogus = await post(server.app, '/auth/reset-password/confirm', {
      email,
      code: 'not-a-code-anyone-was-sent',
      newPassword: 'another password',
    });
    expect(bogus.statusCode).toBe(400);
    expect(hasher.hashes).toBe(before);
  });
});
