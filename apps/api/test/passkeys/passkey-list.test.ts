import type { PasskeyItem, PasskeysResponse, TokenPair } from '@kegel/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { registerAndLogin } from '../support/accounts';
import {
  addPasskey,
  createPasskeyAuthenticator,
  signInWithPasskey,
} from '../support/passkey-authenticator';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import {
  appCode,
  turnOnTwoStep,
  useMovableClock,
  waitForNextCode,
  wrongCodeFor,
} from '../support/two-step';

const NOT_FOUND = { statusCode: 404, error: 'Not Found', message: 'Passkey not found' };

/** The member's passkeys in Account Settings: the list, renaming and removing one. */
describe.each(testDatabaseKinds)("a member's passkeys on $name", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());
  afterEach(() => vi.useRealTimers());

  const member = () => registerAndLogin(server.app, uniqueEmail('passkey-list'), 'correct horse');

  function call(
    method: 'GET' | 'PATCH' | 'DELETE',
    url: string,
    accessToken: string,
    payload?: Record<string, unknown>,
  ) {
    return server.app.inject({
      method,
      url: `/api${url}`,
      headers: { authorization: `Bearer ${accessToken}` },
      ...(payload ? { payload } : {}),
    });
  }

  async function passkeysOf(accessToken: string): Promise<PasskeyItem[]> {
    return (await call('GET', '/users/passkeys', accessToken)).json<PasskeysResponse>().data;
  }

  /** A member who signs in only with passkeys: no password, no Google or Apple identity. */
  async function passkeyOnlyMember(passkeys: number): Promise<TokenPair> {
    const tokens = await member();
    for (let count = 0; count < passkeys; count += 1) {
      await addPasskey(
        server.app,
        tokens.accessToken,
        createPasskeyAuthenticator(),
        `Key ${count}`,
      );
    }
    const { sub } = JSON.parse(
      Buffer.from(tokens.accessToken.split('.')[1] ?? '', 'base64url').toString(),
    ) as { sub: string };
    await server.app.database.db
      .updateTable('users')
      .set({ passwordHash: null })
      .where('id', '=', sub)
      .execute();
    return tokens;
  }

  it('asks for a current two-step code to remove a passkey while two-step sign-in is on', async () => {
    useMovableClock();
    const { accessToken } = await member();
    const added = await addPasskey(server.app, accessToken, createPasskeyAuthenticator(), 'Phone');
    const { secret } = await turnOnTwoStep(server.app, accessToken);
    waitForNextCode();

    const withoutCode = await call('DELETE', `/users/passkeys/${added.id}`, accessToken);
    expect(withoutCode.statusCode, withoutCode.body).toBe(400);
    const wrong = await call('DELETE', `/users/passkeys/${added.id}`, accessToken, {
      code: wrongCodeFor(secret),
    });
    expect(wrong.statusCode, wrong.body).toBe(400);
    expect(await passkeysOf(accessToken)).toHaveLength(1);

    const right = await call('DELETE', `/users/passkeys/${added.id}`, accessToken, {
      code: appCode(secret),
    });
    expect(right.statusCode, right.body).toBe(200);
    expect(await passkeysOf(accessToken)).toEqual([]);
  });

  it('lists his passkeys, oldest first, and only his', async () => {
    const { accessToken } = await member();
    expect(await passkeysOf(accessToken)).toEqual([]);
    await addPasskey(server.app, accessToken, createPasskeyAuthenticator(), 'Phone');
    await addPasskey(server.app, accessToken, createPasskeyAuthenticator(), 'Laptop');
    const stranger = await member();
    await addPasskey(server.app, stranger.accessToken, createPasskeyAuthenticator(), 'Other');
    expect((await passkeysOf(accessToken)).map((passkey) => passkey.name)).toEqual([
      'Phone',
      'Laptop',
    ]);
  });

  it('renames one of his passkeys, and answers 404 for anyone else’s or a malformed id', async () => {
    const { accessToken } = await member();
    const added = await addPasskey(server.app, accessToken, createPasskeyAuthenticator(), 'Phone');
    const renamed = await call('PATCH', `/users/passkeys/${added.id}`, accessToken, {
      name: '  Work phone ',
    });
    expect(renamed.json()).toEqual({ ...added, name: 'Work phone' });
    expect(await passkeysOf(accessToken)).toEqual([{ ...added, name: 'Work phone' }]);
    const empty = await call('PATCH', `/users/passkeys/${added.id}`, accessToken, { name: '' });
    expect(empty.statusCode).toBe(400);

    const stranger = await member();
    for (const id of [
      added.id,
      'not-a-passkey',
      'x'.repeat(90),
      '00000000-0000-4000-8000-000000000000',
    ]) {
      const refused = await call('PATCH', `/users/passkeys/${id}`, stranger.accessToken, {
        name: 'Mine now',
      });
      expect(refused.json()).toEqual(NOT_FOUND);
    }
    expect((await passkeysOf(accessToken))[0]?.name).toBe('Work phone');
  });

  it('removes one of his passkeys, and answers 404 for anyone else’s or a malformed id', async () => {
    const { accessToken } = await member();
    const added = await addPasskey(server.app, accessToken, createPasskeyAuthenticator());
    const stranger = await member();
    for (const id of [
      added.id,
      'not-a-passkey',
      'x'.repeat(90),
      '00000000-0000-4000-8000-000000000000',
    ]) {
      const refused = await call('DELETE', `/users/passkeys/${id}`, stranger.accessToken);
      expect(refused.json()).toEqual(NOT_FOUND);
    }
    expect(await passkeysOf(accessToken)).toHaveLength(1);
    const removed = await call('DELETE', `/users/passkeys/${added.id}`, accessToken);
    expect(removed.json()).toEqual({ message: 'Passkey removed' });
    expect(await passkeysOf(accessToken)).toEqual([]);
    expect((await call('DELETE', `/users/passkeys/${added.id}`, accessToken)).json()).toEqual(
      NOT_FOUND,
    );
  });

  it('refuses to remove the last way to sign in (409), but not one of two passkeys', async () => {
    const tokens = await passkeyOnlyMember(2);
    const [first, second] = await passkeysOf(tokens.accessToken);
    const removed = await call('DELETE', `/users/passkeys/${first!.id}`, tokens.accessToken);
    expect(removed.statusCode, removed.body).toBe(200);
    const refused = await call('DELETE', `/users/passkeys/${second!.id}`, tokens.accessToken);
    expect(refused.json()).toEqual({
      statusCode: 409,
      error: 'Conflict',
      message:
        'This passkey is the only way to sign in to your account. Set a password (or add another passkey) before removing it.',
    });
    expect(await passkeysOf(tokens.accessToken)).toHaveLength(1);
  });

  it('never lets two removals at once take both of the last two passkeys', async () => {
    const tokens = await passkeyOnlyMember(2);
    const ids = (await passkeysOf(tokens.accessToken)).map((passkey) => passkey.id);
    const results = await Promise.all(
      ids.map((id) => call('DELETE', `/users/passkeys/${id}`, tokens.accessToken)),
    );
    expect(results.map((result) => result.statusCode).sort()).toEqual([200, 409]);
    expect(await passkeysOf(tokens.accessToken)).toHaveLength(1);
  });

  it('lets a member with a Google or Apple identity remove his only passkey', async () => {
    const tokens = await passkeyOnlyMember(1);
    const { sub } = JSON.parse(
      Buffer.from(tokens.accessToken.split('.')[1] ?? '', 'base64url').toString(),
    ) as { sub: string };
    await server.app.database.db
      .insertInto('userIdentities')
      .values({ provider: 'google', subject: `google-${sub}`, userId: sub, email: null })
      .execute();
    const [only] = await passkeysOf(tokens.accessToken);
    const removed = await call('DELETE', `/users/passkeys/${only!.id}`, tokens.accessToken);
    expect(removed.statusCode, removed.body).toBe(200);
  });

  it('goes with the account when it is deleted', async () => {
    const email = uniqueEmail('passkey-deleted');
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    const authenticator = createPasskeyAuthenticator();
    await addPasskey(server.app, tokens.accessToken, authenticator);
    const deleted = await server.app.inject({
      method: 'POST',
      url: '/api/users/delete',
      headers: { authorization: `Bearer ${tokens.accessToken}` },
      payload: { password: 'correct horse' },
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect((await signInWithPasskey(server.app, authenticator)).statusCode).toBe(401);
  });
});
