// Password sign-ins take turns (a few hashes at once, the rest wait in line). A client that gives
// up while its sign-in waits, as clients under a storm do, must not have it run anyway: its turn
// belongs to those still waiting. Over real sockets, since leaving is closing the connection.
import http from 'node:http';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  createPasswordHasher,
  defaultHashingThreads,
  type PasswordHasher,
} from '../../src/security/password-hasher';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const pglite = testDatabaseKinds[0]!;
/** As many sign-ins as run at once (modules/module-routes.ts). */
const TURNS = 2 * defaultHashingThreads();

/** The real hasher, whose password checks all wait until `open()`, counted as they start. */
function gatedHasher() {
  const real = createPasswordHasher();
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  const hasher = {
    checksStarted: 0,
    hash: (password: string) => real.hash(password),
    async verify(hash: string, password: string) {
      hasher.checksStarted += 1;
      await opened;
      return real.verify(hash, password);
    },
    async verifyAgainstNothing(password: string) {
      hasher.checksStarted += 1;
      await opened;
      return real.verifyAgainstNothing(password);
    },
    load: () => real.load(),
    close: () => real.close(),
    open: () => open(),
  } satisfies PasswordHasher & Record<string, unknown>;
  return hasher;
}

describe('sign-ins waiting their turn', () => {
  let server: TestServer;
  let origin: string;
  const hasher = gatedHasher();
  beforeAll(async () => {
    server = await startTestServer(pglite, { passwordHasher: hasher });
    origin = await server.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    hasher.open();
    await server.close();
    await hasher.close();
  });

  async function signInsWaiting(): Promise<number> {
    const text = (await server.app.inject({ method: 'GET', url: '/metrics' })).body;
    const line = text.split('\n').find((row) => row.startsWith('kegel_password_sign_ins_waiting '));
    return Number(line?.split(' ')[1]);
  }

  function signIn(email: string): Promise<number> {
    return fetch(`${origin}/api/auth/local/login/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'a guess of some length' }),
    }).then((response) => response.status);
  }

  it('drops a sign-in whose client left while it waited, and runs the ones still waited for', async () => {
    const running = Array.from({ length: TURNS }, () => signIn(uniqueEmail('running')));
    await expect.poll(() => hasher.checksStarted).toBe(TURNS);

    // One more, from a client that gives up: it waits in line, then its connection closes.
    const leaving = http.request(`${origin}/api/auth/local/login/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    leaving.on('error', () => {});
    leaving.end(JSON.stringify({ email: uniqueEmail('leaving'), password: 'a guess' }));
    await expect.poll(signInsWaiting).toBe(1);
    const staying = signIn(uniqueEmail('staying'));
    await expect.poll(signInsWaiting).toBe(2);
    leaving.destroy();
    await expect.poll(signInsWaiting).toBe(1);

    hasher.open();
    expect(await Promise.all([...running, staying])).toEqual(Array(TURNS + 1).fill(401));
    // The checks of those who stayed, and none for the client that left.
    expect(hasher.checksStarted).toBe(TURNS + 1);
    expect(await signInsWaiting()).toBe(0);
  });
});
