// The "This was not me" link of an email change (ADR 016): whoever holds the password and the
// new mailbox cannot void, outlive or outrank the owner's link, and after a genuine change the old
// mailbox holds a key to the account for 72 hours at most, which the owner can close early.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  askForEmailChange,
  changeEmailThroughLink,
  closeUndoWindows,
  getProfile,
  login,
  post,
  registerAndLogin,
  resetPasswordThroughLink,
  signedInDaysAgo,
  undoCodeMailedTo,
  undoEmailChange,
} from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const HOUR_MS = 60 * 60 * 1000;

describe.each(testDatabaseKinds)('the undo of an email change on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const db = () => server.app.database.db;

  const signInWith = (email: string, password: string) =>
    post(server.app, '/auth/local/login/email', { email, password });

  const undoWindows = async (accessToken: string) => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/users/email-change-undo',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{
      undoWindows: { previousEmail: string; undoableUntil: string; canCloseHere: boolean }[];
    }>().undoWindows;
  };

  /** The owner registers; someone who knows his password moves the account to his own address. */
  async function takeOver(label: string) {
    const owner = uniqueEmail(`owner-${label}`);
    const attacker = uniqueEmail(`attacker-${label}`);
    const stolen = await registerAndLogin(server.app, owner, 'correct horse');
    await changeEmailThroughLink(server, stolen.accessToken, {
      newEmail: attacker,
      password: 'correct horse',
    });
    return { owner, attacker, stolen };
  }

  /** ...and then asks for a second move, to another address of his (not confirmed). */
  async function askToMoveAgain(stolen: { accessToken: string }, label: string) {
    const elsewhere = uniqueEmail(`attacker-${label}-2`);
    await askForEmailChange(server, stolen.accessToken, {
      newEmail: elsewhere,
      password: 'correct horse',
    });
    return elsewhere;
  }

  /** The owner sets a password through his own mailbox and finds his account at his address. */
  async function ownerSignsInAgain(owner: string) {
    await resetPasswordThroughLink(server, owner, 'owner took it back');
    const mine = await login(server.app, owner, 'owner took it back');
    expect((await getProfile(server.app, mine.accessToken)).json()).toMatchObject({
      email: owner,
    });
  }

  describe("an attacker's own undo link", () => {
    it("does not void the owner's: the owner's link still takes the account back, and ends the attacker's access", async () => {
      const owner = uniqueEmail('owner-first');
      const attacker = uniqueEmail('attacker-first');
      const elsewhere = uniqueEmail('attacker-second');
      await registerAndLogin(server.app, owner, 'correct horse');

      // 1. The attacker knows the password: he signs in and moves the account to his address.
      const stolen = await login(server.app, owner, 'correct horse');
      await changeEmailThroughLink(server, stolen.accessToken, {
        newEmail: attacker,
        password: 'correct horse',
      });
      const ownersUndo = await undoCodeMailedTo(server, owner, attacker);

      // 2. He asks for a second change; its undo link goes to his own address...
      await askForEmailChange(server, stolen.accessToken, {
        newEmail: elsewhere,
        password: 'correct horse',
      });
      const attackersUndo = await undoCodeMailedTo(server, attacker, elsewhere);

      // 3. ...and he uses it, then sets a password through his own mailbox.
      expect((await undoEmailChange(server, attackersUndo)).statusCode).toBe(200);
      await resetPasswordThroughLink(server, attacker, 'attacker keeps it');
      const attackerAgain = await login(server.app, attacker, 'attacker keeps it');

      // 4. The owner's link, in the owner's mailbox, still works and gives the account back.
      const taken = await undoEmailChange(server, ownersUndo);
      expect(taken.statusCode, taken.body).toBe(200);
      expect((await getProfile(server.app, attackerAgain.accessToken)).statusCode).toBe(401);
      expect((await signInWith(attacker, 'attacker keeps it')).statusCode).toBe(401);
      expect((await signInWith(owner, 'attacker keeps it')).statusCode).toBe(401);

      await ownerSignsInAgain(owner);
    });

    it("dies when the owner's older link is used", async () => {
      const { owner, attacker, stolen } = await takeOver('older');
      const elsewhere = await askToMoveAgain(stolen, 'older');
      const attackersUndo = await undoCodeMailedTo(server, attacker, elsewhere);

      expect(
        (await undoEmailChange(server, await undoCodeMailedTo(server, owner, attacker))).statusCode,
      ).toBe(200);
      expect((await undoEmailChange(server, attackersUndo)).statusCode).toBe(400);
      await ownerSignsInAgain(owner);
    });

    it('a change asked for while an undo link is open is told to the address that link protects, with a link of its own', async () => {
      const { owner, attacker, stolen } = await takeOver('told');
      const elsewhere = await askToMoveAgain(stolen, 'told');

      // The owner hears of the second move at his own address, and its link takes the account
      // back as the first one would.
      const toldOwner = await undoCodeMailedTo(server, owner, elsewhere);
      expect((await undoEmailChange(server, toldOwner)).statusCode).toBe(200);
      expect(
        (await undoEmailChange(server, await undoCodeMailedTo(server, owner, attacker))).statusCode,
      ).toBe(400);
      await ownerSignsInAgain(owner);
    });

    it("cannot be outlived by deleting the account: deletion waits for the owner's undo window", async () => {
      const { owner, attacker, stolen } = await takeOver('delete');

      const deleted = await post(
        server.app,
        '/users/delete',
        { password: 'correct horse' },
        stolen.accessToken,
      );
      expect(deleted.statusCode, deleted.body).toBe(409);
      expect(deleted.json<{ message: string }>().message).toContain('previous address');

      expect(
        (await undoEmailChange(server, await undoCodeMailedTo(server, owner, attacker))).statusCode,
      ).toBe(200);
    });
  });

  describe('after a genuine change', () => {
    it('the old address can undo it for 72 hours, and the notice and Account Settings say until when', async () => {
      const oldEmail = uniqueEmail('genuine-old');
      const newEmail = uniqueEmail('genuine-new');
      const member = await registerAndLogin(server.app, oldEmail, 'correct horse');
      const askedAt = Date.now();
      await changeEmailThroughLink(server, member.accessToken, {
        newEmail,
        password: 'correct horse',
      });

      const [window, ...others] = await undoWindows(member.accessToken);
      expect(others).toEqual([]);
      expect(window).toMatchObject({ previousEmail: oldEmail, canCloseHere: false });
      const until = Date.parse(window!.undoableUntil);
      expect(until).toBeGreaterThan(askedAt + 72 * HOUR_MS - 60_000);
      expect(until).toBeLessThan(askedAt + 72 * HOUR_MS + 60_000);

      const notice = await server.inbox.waitFor(
        (mail) => mail.to.includes(oldEmail) && mail.subject.includes('being changed'),
      );
      const untilText = new Intl.DateTimeFormat('en-US', {
        dateStyle: 'long',
        timeStyle: 'short',
        timeZone: 'UTC',
      }).format(new Date(until));
      expect(notice.text).toContain(`until ${untilText} (UTC)`);
    });

    it('the link stops working once its 72 hours are over', async () => {
      const oldEmail = uniqueEmail('expired-old');
      const newEmail = uniqueEmail('expired-new');
      const member = await registerAndLogin(server.app, oldEmail, 'correct horse');
      await changeEmailThroughLink(server, member.accessToken, {
        newEmail,
        password: 'correct horse',
      });
      const code = await undoCodeMailedTo(server, oldEmail, newEmail);
      // Three days and a minute later.
      await db()
        .updateTable('oneTimeCodes')
        .set({
          createdAt: sql<Date>`created_at - interval '72 hours 1 minute'`,
          expiresAt: sql<Date>`expires_at - interval '72 hours 1 minute'`,
        })
        .where('email', '=', oldEmail)
        .where('purpose', '=', 'email_change_cancel')
        .execute();

      expect((await undoEmailChange(server, code)).statusCode).toBe(400);
      expect(await undoWindows(member.accessToken)).toEqual([]);
      await login(server.app, newEmail, 'correct horse');
    });

    it('the owner closes the window early from a device signed in 7 days before the change; a fresh sign-in cannot', async () => {
      const oldEmail = uniqueEmail('closing-old');
      const newEmail = uniqueEmail('closing-new');
      const member = await registerAndLogin(server.app, oldEmail, 'correct horse');
      await signedInDaysAgo(server, member.accessToken, 8);
      await changeEmailThroughLink(server, member.accessToken, {
        newEmail,
        password: 'correct horse',
      });
      const code = await undoCodeMailedTo(server, oldEmail, newEmail);

      // Whoever signed in just now (an attacker with the password) cannot close it...
      const fresh = await login(server.app, newEmail, 'correct horse');
      expect((await undoWindows(fresh.accessToken))[0]).toMatchObject({ canCloseHere: false });
      const refused = await closeUndoWindows(server, fresh.accessToken);
      expect(refused.statusCode, refused.body).toBe(403);
      expect(refused.json<{ message: string }>().message).toContain('7 days');
      expect(await undoWindows(fresh.accessToken)).toHaveLength(1);

      // ...the owner's long-standing device can.
      expect((await undoWindows(member.accessToken))[0]).toMatchObject({
        previousEmail: oldEmail,
        canCloseHere: true,
      });
      const closed = await closeUndoWindows(server, member.accessToken);
      expect(closed.statusCode, closed.body).toBe(200);
      expect(await undoWindows(member.accessToken)).toEqual([]);

      // Whoever reads the old mailbox now holds nothing.
      expect((await undoEmailChange(server, code)).statusCode).toBe(400);
      expect((await getProfile(server.app, member.accessToken)).json()).toMatchObject({
        email: newEmail,
      });
      await login(server.app, newEmail, 'correct horse');
    });

    it('closing leaves a change still waiting for its confirmation undoable', async () => {
      const oldEmail = uniqueEmail('pending-old');
      const member = await registerAndLogin(server.app, oldEmail, 'correct horse');
      await signedInDaysAgo(server, member.accessToken, 8);
      const pending = uniqueEmail('pending-new');
      await askForEmailChange(server, member.accessToken, {
        newEmail: pending,
        password: 'correct horse',
      });

      expect(await undoWindows(member.accessToken)).toEqual([]);
      expect((await closeUndoWindows(server, member.accessToken)).statusCode).toBe(200);
      const code = await undoCodeMailedTo(server, oldEmail, pending);
      expect((await undoEmailChange(server, code)).statusCode).toBe(200);
    });

    it('a window closed, the account can be deleted', async () => {
      const oldEmail = uniqueEmail('close-delete-old');
      const newEmail = uniqueEmail('close-delete-new');
      const member = await registerAndLogin(server.app, oldEmail, 'correct horse');
      await signedInDaysAgo(server, member.accessToken, 8);
      await changeEmailThroughLink(server, member.accessToken, {
        newEmail,
        password: 'correct horse',
      });
      expect((await closeUndoWindows(server, member.accessToken)).statusCode).toBe(200);
      const deleted = await post(
        server.app,
        '/users/delete',
        { password: 'correct horse' },
        member.accessToken,
      );
      expect(deleted.statusCode, deleted.body).toBe(200);
    });
  });
});
