// The support desk's other actions (ADR 020), through HTTP: signing a member out everywhere,
// sending his mails again, notes, what deleting his account does to the audit rows about him,
// and the Prometheus counter of operator actions.
import { supportDeskMessages } from '@kegel/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { login, post } from '../support/accounts';
import {
  auditRowsAbout,
  deskCall,
  makeMember,
  MEMBER_PASSWORD,
  mailTemplatesFor,
  type TestMember,
} from '../support/desk-actions';
import { makeOperator, type TestOperator, testAuditTrail } from '../support/operators';
import { linkIn, startTestServer, type TestServer } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { useMovableClock } from '../support/two-step';
import { pseudonymOf } from '../../src/modules/audit';

const NO_SUCH_MEMBER = '00000000-0000-4000-8000-000000000000';

describe.each(testDatabaseKinds)('member actions of the support desk on $name', (kind) => {
  let server: TestServer;
  let support: TestOperator;
  let admin: TestOperator;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    useMovableClock();
    support ??= await makeOperator(server.app, 'support');
    admin ??= await makeOperator(server.app, 'admin');
  });
  afterEach(() => vi.useRealTimers());

  const signOut = (operator: { accessToken: string } | undefined, memberId: string) =>
    deskCall(
      server.app,
      'POST',
      `/ops/members/${memberId}/sessions/revoke`,
      operator?.accessToken,
      { reason: 'member reported a stolen phone' },
      '192.0.2.44',
    );
  const resend = (operator: { accessToken: string } | undefined, memberId: string, mail: string) =>
    deskCall(server.app, 'POST', `/ops/members/${memberId}/mails`, operator?.accessToken, {
      mail,
    });
  const note = (operator: { accessToken: string } | undefined, memberId: string, text: string) =>
    deskCall(server.app, 'POST', `/ops/members/${memberId}/notes`, operator?.accessToken, { text });

  const profileStatus = async (accessToken: string) =>
    (await deskCall(server.app, 'GET', '/users/profile', accessToken)).statusCode;

  async function recorded(member: TestMember) {
    return {
      audit: (await auditRowsAbout(server.app, member.userId)).map((row) => row.action),
      mail: await mailTemplatesFor(server.app, member.userId),
    };
  }

  it('signs the member out of every device: his old access and refresh tokens stop working, he is mailed, and the action is audited', async () => {
    const member = await makeMember(server.app, 'signed-out');
    const second = await login(server.app, member.email, MEMBER_PASSWORD);
    expect(await profileStatus(member.accessToken)).toBe(200);

    const response = await signOut(support, member.userId);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ ended: 2 });
    expect(await profileStatus(member.accessToken)).toBe(401);
    expect(await profileStatus(second.accessToken)).toBe(401);
    const refreshed = await post(server.app, '/auth/refresh', {
      refreshToken: second.refreshToken,
    });
    expect(refreshed.statusCode).toBe(401);
    // The operator's own session is not his: it still works.
    expect(await profileStatus(support.accessToken)).toBe(200);

    expect(await auditRowsAbout(server.app, member.userId)).toEqual([
      {
        actorId: support.userId,
        actorEmail: support.email,
        actorRole: 'support',
        action: 'sessions.revoke',
        targetUserId: member.userId,
        targetEmail: member.email,
        reason: 'member reported a stolen phone',
        changes: { before: { openSessions: 2 }, after: { openSessions: 0 } },
        requestId: expect.stringMatching(/\S/),
        clientAddress: '192.0.2.44',
      },
    ]);
    const mail = await server.inbox.waitFor((email) => email.to.includes(member.email));
    expect(mail.subject).toBe('You were signed out of every device by our support team');
    expect(mail.text).toContain('Reason: member reported a stolen phone');
    // Signing in again works.
    expect(
      await profileStatus((await login(server.app, member.email, MEMBER_PASSWORD)).accessToken),
    ).toBe(200);
  });

  it('sends a password reset mail whose link works, audited without its code', async () => {
    const member = await makeMember(server.app, 'reset');
    const response = await resend(support, member.userId, 'password-reset');
    expect(response.statusCode, response.body).toBe(200);
    const mail = await server.inbox.waitFor(
      (email) => email.to.includes(member.email) && email.subject.includes('Reset your'),
    );
    const link = linkIn(mail);
    const code = link.searchParams.get('code')!;
    const confirmed = await post(server.app, '/auth/reset-password/confirm', {
      email: member.email,
      code,
      newPassword: 'a brand new passphrase',
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);

    const [row] = await auditRowsAbout(server.app, member.userId);
    expect(row).toMatchObject({
      actorRole: 'support',
      action: 'mail.resend',
      changes: { before: null, after: { mail: 'password-reset' } },
    });
    expect(JSON.stringify(row)).not.toContain(code);
  });

  it('sends the verification mail (the reset link, which proves the address) only while the address is not proved: 409 once it is', async () => {
    const member = await makeMember(server.app, 'verify');
    const first = await resend(admin, member.userId, 'verification');
    expect(first.statusCode, first.body).toBe(200);
    const mail = await server.inbox.waitFor((email) => email.to.includes(member.email));
    // Using the link proves the address.
    const confirmed = await post(server.app, '/auth/reset-password/confirm', {
      email: member.email,
      code: linkIn(mail).searchParams.get('code'),
      newPassword: 'a brand new passphrase',
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const before = await recorded(member);
    const again = await resend(admin, member.userId, 'verification');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ message: supportDeskMessages.mailNotNeeded });
    expect(await recorded(member)).toEqual(before);
    expect(before.audit).toEqual(['mail.resend']);
  });

  it('adds a note: an audit row whose reason is the text, and no mail', async () => {
    const member = await makeMember(server.app, 'noted');
    const response = await note(support, member.userId, '  Called about a double charge.  ');
    expect(response.statusCode, response.body).toBe(201);
    const added = response.json<{ id: string; at: string }>();
    expect(added).toEqual({ id: expect.any(String), at: expect.any(String) });
    const rows = await server.app.database.db
      .selectFrom('auditEvents')
      .select(['id', 'occurredAt', 'action', 'reason', 'actorEmail', 'targetUserId'])
      .where('id', '=', added.id)
      .execute();
    expect(rows).toEqual([
      {
        id: added.id,
        occurredAt: new Date(added.at),
        action: 'note.add',
        reason: 'Called about a double charge.',
        actorEmail: support.email,
        targetUserId: member.userId,
      },
    ]);
    expect(await mailTemplatesFor(server.app, member.userId)).toEqual([]);
    const empty = await note(support, member.userId, '   ');
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ message: [supportDeskMessages.noteRequired] });
  });

  it('answers 401 to a visitor, 403 to a member and 404 for an unknown member on each call, recording nothing', async () => {
    const member = await makeMember(server.app, 'refused');
    for (const call of [
      (who?: { accessToken: string }, id = member.userId) => signOut(who, id),
      (who?: { accessToken: string }, id = member.userId) => resend(who, id, 'password-reset'),
      (who?: { accessToken: string }, id = member.userId) => note(who, id, 'a note'),
    ]) {
      expect((await call(undefined)).statusCode).toBe(401);
      const byMember = await call(member);
      expect(byMember.statusCode).toBe(403);
      expect(byMember.json()).toMatchObject({ message: supportDeskMessages.notAnOperator });
      const unknown = await call(support, NO_SUCH_MEMBER);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ message: supportDeskMessages.memberNotFound });
    }
    expect(await recorded(member)).toEqual({ audit: [], mail: [] });
    expect(await profileStatus(member.accessToken)).toBe(200);
  });

  it('replaces the email of a deleted member by a pseudonym in the audit rows about him, and the chain still verifies', async () => {
    const member = await makeMember(server.app, 'deleted');
    expect((await note(support, member.userId, 'first contact')).statusCode).toBe(201);
    expect((await signOut(admin, member.userId)).statusCode).toBe(200);
    const { accessToken } = await login(server.app, member.email, MEMBER_PASSWORD);
    const deleted = await post(
      server.app,
      '/users/delete',
      { password: MEMBER_PASSWORD },
      accessToken,
    );
    expect(deleted.statusCode, deleted.body).toBe(200);

    const rows = await auditRowsAbout(server.app, member.userId);
    expect(rows.map((row) => [row.action, row.targetEmail])).toEqual([
      ['note.add', pseudonymOf(member.userId)],
      ['sessions.revoke', pseudonymOf(member.userId)],
    ]);
    expect(JSON.stringify(rows)).not.toContain(member.email);
    expect((await testAuditTrail().verify(server.app.database.db)).problems).toEqual([]);
  });

  it('counts operator actions by kind in Prometheus, only those that went through', async () => {
    const scrape = async () => (await server.app.inject({ method: 'GET', url: '/metrics' })).body;
    const count = (text: string, action: string) =>
      Number(
        new RegExp(
          `^kegel_operator_actions_total\\{action="${action.replace('.', '\\.')}"\\} (\\d+)$`,
          'm',
        ).exec(text)?.[1] ?? 0,
      );
    const member = await makeMember(server.app, 'counted');
    const before = await scrape();
    expect((await note(support, member.userId, 'one')).statusCode).toBe(201);
    expect((await note(support, member.userId, 'two')).statusCode).toBe(201);
    expect((await note(support, NO_SUCH_MEMBER, 'refused')).statusCode).toBe(404);
    expect((await signOut(support, member.userId)).statusCode).toBe(200);
    const after = await scrape();
    expect(count(after, 'note.add') - count(before, 'note.add')).toBe(2);
    expect(count(after, 'sessions.revoke') - count(before, 'sessions.revoke')).toBe(1);
  });
});
