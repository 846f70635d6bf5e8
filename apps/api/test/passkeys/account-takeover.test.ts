// Passkeys and taking an account back: what someone who held the account for a while added must
// not outlive the owner's "This was not me".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  changeEmailThroughLink,
  registerAndLogin,
  undoCodeMailedTo,
  undoEmailChange,
} from '../support/accounts';
import {
  addPasskey,
  createPasskeyAuthenticator,
  signInWithPasskey,
} from '../support/passkey-authenticator';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

describe.each(testDatabaseKinds)('passkeys and an undone email change on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  it("removes the passkeys added after the change was asked for, and keeps the owner's", async () => {
    const owner = uniqueEmail('owner-passkey');
    const attacker = uniqueEmail('attacker-passkey');
    const tokens = await registerAndLogin(server.app, owner, 'correct horse');
    const ownersKey = createPasskeyAuthenticator();
    await addPasskey(server.app, tokens.accessToken, ownersKey, "Owner's phone");
    await changeEmailThroughLink(server, tokens.accessToken, {
      newEmail: attacker,
      password: 'correct horse',
    });
    // The person who moved the account adds a passkey of his own (from a session still open).
    const attackersKey = createPasskeyAuthenticator();
    await addPasskey(server.app, tokens.accessToken, attackersKey, 'Mine now');
    expect((await signInWithPasskey(server.app, attackersKey)).statusCode).toBe(200);

    const undone = await undoEmailChange(server, await undoCodeMailedTo(server, owner, attacker));
    expect(undone.statusCode, undone.body).toBe(200);

    expect((await signInWithPasskey(server.app, attackersKey)).statusCode).toBe(401);
    expect((await signInWithPasskey(server.app, ownersKey)).statusCode).toBe(200);
  });
});
