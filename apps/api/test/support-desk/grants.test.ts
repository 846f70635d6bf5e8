// Premium days granted by the support desk (ADR 020), through HTTP: the role rules, the limit of
// `support`, the idempotency key (repeated, and ten requests at once), what the member then sees
// (Purchase History, profile, mail), the removal of a grant, and the audit row of each change.
import {
  type Grant,
  type PurchasesResponse,
  SUPPORT_MAX_GRANT_DAYS,
  supportDeskMessages,
} from '@kegel/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import {
  auditRowsAbout,
  deskCall,
  makeMember,
  mailTemplatesFor,
  premiumEndOf,
  type TestMember,
} from '../support/desk-actions';
import { makeOperator, type TestOperator, testAuditTrail } from '../support/operators';
import { startTestServer, type TestServer } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { useMovableClock } from '../support/two-step';

const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(testDatabaseKinds)('grants of the support desk on $name', (kind) => {
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

  let keys = 0;
  function grantRequest(days: number, reason = 'service outage') {
    keys += 1;
    return { days, reason, idempotencyKey: `grant-key-${Date.now()}-${keys}` };
  }

  function grant(operator: { accessToken: string } | undefined, memberId: string, body: unknown) {
    return deskCall(
      server.app,
      'POST',
      `/ops/members/${memberId}/grants`,
      operator?.accessToken,
      body,
    );
  }

  function removeGrant(
    operator: { accessToken: string } | undefined,
    grantId: string,
    reason: string,
  ) {
    return deskCall(server.app, 'DELETE', `/ops/grants/${grantId}`, operator?.accessToken, {
      reason,
    });
  }

  async function purchasesOf(member: TestMember) {
    const response = await deskCall(
      server.app,
      'GET',
      '/users/subscriptions/personal',
      member.accessToken,
    );
    expect(response.statusCode, response.body).toBe(200);
    return response.json<PurchasesResponse>().data;
  }

  async function rowsOf(member: TestMember) {
    const db = server.app.database.db;
    const count = async (table: 'operatorGrants' | 'purchases' | 'premiumLedger') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('rows'))
            .where('userId', '=', member.userId)
            .executeTakeFirstOrThrow()
        ).rows,
      );
    return {
      grants: await count('operatorGrants'),
      purchases: await count('purchases'),
      ledger: await count('premiumLedger'),
      audit: (await auditRowsAbout(server.app, member.userId)).length,
      mail: (await mailTemplatesFor(server.app, member.userId)).length,
    };
  }

  it('grants 7 days: the Purchase History names the reason, the profile ends 7 days later, the member is mailed and one audit row holds', async () => {
    const member = await makeMember(server.app, 'granted');
    const before = Date.now();
    const response = await deskCall(
      server.app,
      'POST',
      `/ops/members/${member.userId}/grants`,
      support.accessToken,
      grantRequest(7),
      '203.0.113.9',
    );
    expect(response.statusCode, response.body).toBe(201);
    const granted = response.json<Grant>();
    expect(granted).toEqual({
      id: expect.any(String),
      days: 7,
      reason: 'service outage',
      grantedAt: expect.any(String),
      name: 'Granted by support: 7 days, service outage',
      subscriptionEndDate: expect.any(String),
    });
    const end = new Date(granted.subscriptionEndDate!).getTime();
    expect(end - before).toBeGreaterThanOrEqual(7 * DAY_MS);
    expect(end - Date.now()).toBeLessThanOrEqual(7 * DAY_MS);
    expect(await premiumEndOf(server.app, member)).toBe(granted.subscriptionEndDate);
    expect(await purchasesOf(member)).toEqual([
      {
        name: 'Granted by support: 7 days, service outage',
        provider: 'Support',
        createdAt: expect.any(String),
        expiresAt: granted.subscriptionEndDate,
      },
    ]);

    expect(await auditRowsAbout(server.app, member.userId)).toEqual([
      {
        actorId: support.userId,
        actorEmail: support.email,
        actorRole: 'support',
        action: 'grant.add',
        targetUserId: member.userId,
        targetEmail: member.email,
        reason: 'service outage',
        changes: {
          before: { subscriptionEndDate: null },
          after: { subscriptionEndDate: granted.subscriptionEndDate, grantId: granted.id, days: 7 },
        },
        requestId: expect.stringMatching(/\S/),
        clientAddress: '203.0.113.9',
      },
    ]);
    expect((await testAuditTrail().verify(server.app.database.db)).problems).toEqual([]);

    const mail = await server.inbox.waitFor((email) => email.to.includes(member.email));
    expect(mail.subject).toBe('You have 7 more days of premium');
    expect(mail.text).toContain('Reason: service outage');
    expect(mail.text).toContain('Your premium now runs until');
  });

  it('names a single day "1 day", and adds a grant after the end of the premium the member has', async () => {
    const member = await makeMember(server.app, 'one-day');
    const first = (await grant(support, member.userId, grantRequest(3))).json<Grant>();
    const second = await grant(support, member.userId, grantRequest(1, 'sorry for the wait'));
    expect(second.statusCode, second.body).toBe(201);
    const granted = second.json<Grant>();
    expect(granted.name).toBe('Granted by support: 1 day, sorry for the wait');
    await server.inbox.waitFor(
      (email) =>
        email.to.includes(member.email) && email.subject === 'You have 1 more day of premium',
    );
    expect(new Date(granted.subscriptionEndDate!).getTime()).toBe(
      new Date(first.subscriptionEndDate!).getTime() + DAY_MS,
    );
  });

  it(`lets support grant up to ${SUPPORT_MAX_GRANT_DAYS} days and refuses more (403), which an admin may grant`, async () => {
    const member = await makeMember(server.app, 'limit');
    const atLimit = await grant(support, member.userId, grantRequest(SUPPORT_MAX_GRANT_DAYS));
    expect(atLimit.statusCode, atLimit.body).toBe(201);
    const before = await rowsOf(member);
    const beyond = await grant(support, member.userId, grantRequest(SUPPORT_MAX_GRANT_DAYS + 1));
    expect(beyond.statusCode).toBe(403);
    expect(beyond.json()).toMatchObject({ message: supportDeskMessages.supportGrantLimit });
    expect(await rowsOf(member)).toEqual(before);
    const byAdmin = await grant(admin, member.userId, grantRequest(365));
    expect(byAdmin.statusCode, byAdmin.body).toBe(201);
    const tooMany = await grant(admin, member.userId, grantRequest(3651));
    expect(tooMany.statusCode).toBe(400);
  });

  it('answers the same grant for the same key and grants nothing more; another grant with that key is 409', async () => {
    const member = await makeMember(server.app, 'repeat');
    const request = grantRequest(5);
    const first = await grant(support, member.userId, request);
    expect(first.statusCode, first.body).toBe(201);
    const after = await rowsOf(member);
    const again = await grant(support, member.userId, request);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(await rowsOf(member)).toEqual(after);

    for (const other of [
      { ...request, days: 6 },
      { ...request, reason: 'another reason' },
    ]) {
      const reused = await grant(support, member.userId, other);
      expect(reused.statusCode).toBe(409);
      expect(reused.json()).toMatchObject({ message: supportDeskMessages.idempotencyKeyReused });
    }
    expect(await rowsOf(member)).toEqual(after);
    // The key is the member's: the same key for another member is a grant of its own.
    const other = await makeMember(server.app, 'same-key');
    expect((await grant(support, other.userId, request)).statusCode).toBe(201);
  });

  it('grants once for ten requests with one key at once', async () => {
    const member = await makeMember(server.app, 'ten');
    const request = grantRequest(7);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => grant(support, member.userId, request)),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(10).fill(201));
    const ids = new Set(responses.map((response) => response.json<Grant>().id));
    expect(ids.size).toBe(1);
    expect(await rowsOf(member)).toEqual({ grants: 1, purchases: 1, ledger: 1, audit: 1, mail: 1 });
    const end = new Date((await premiumEndOf(server.app, member))!).getTime();
    expect(end - Date.now()).toBeLessThanOrEqual(7 * DAY_MS);
    expect(end - Date.now()).toBeGreaterThan(7 * DAY_MS - 60_000);
  });

  it('removes a grant (admin only): its days go, the history shows it refunded, the member is mailed, and a second removal is 409', async () => {
    const member = await makeMember(server.app, 'removed');
    const first = (await grant(support, member.userId, grantRequest(10))).json<Grant>();
    // The second a moment later (100 ms, well within the 1 s the end's check allows): the test's
    // fake clock, which PGlite's now() reads, moves in 20 ms steps, and two purchases of one
    // moment have no order in the history.
    vi.setSystemTime(Date.now() + 100);
    const second = (await grant(support, member.userId, grantRequest(4, 'goodwill'))).json<Grant>();
    const endBefore = new Date(second.subscriptionEndDate!).getTime();

    const bySupport = await removeGrant(support, first.id, 'granted by mistake');
    expect(bySupport.statusCode).toBe(403);
    expect(bySupport.json()).toMatchObject({ message: supportDeskMessages.adminOnly });
    expect((await auditRowsAbout(server.app, member.userId)).map((row) => row.action)).toEqual([
      'grant.add',
      'grant.add',
    ]);

    const removed = await removeGrant(admin, first.id, 'granted by mistake');
    expect(removed.statusCode, removed.body).toBe(200);
    const { subscriptionEndDate } = removed.json<{ subscriptionEndDate: string }>();
    // The later grant moves back to its own grant time: the removed one's days are out.
    expect(new Date(subscriptionEndDate).getTime()).toBe(
      new Date(second.grantedAt).getTime() + 4 * DAY_MS,
    );
    expect(new Date(subscriptionEndDate).getTime()).toBeLessThan(endBefore - 10 * DAY_MS + 1000);
    expect(await premiumEndOf(server.app, member)).toBe(subscriptionEndDate);
    const history = await purchasesOf(member);
    expect(history).toEqual([
      expect.objectContaining({
        name: 'Granted by support: 4 days, goodwill',
        provider: 'Support',
      }),
      expect.objectContaining({
        name: 'Granted by support: 10 days, service outage',
        refundedAt: expect.any(String),
      }),
    ]);
    expect(history[0]!.refundedAt).toBeUndefined();

    const rows = await auditRowsAbout(server.app, member.userId);
    expect(rows.at(-1)).toMatchObject({
      actorId: admin.userId,
      actorRole: 'admin',
      action: 'grant.remove',
      reason: 'granted by mistake',
      changes: {
        before: { subscriptionEndDate: second.subscriptionEndDate, grantId: first.id },
        after: { subscriptionEndDate },
      },
    });
    const mail = await server.inbox.waitFor(
      (email) => email.to.includes(member.email) && email.subject.includes('removed'),
    );
    expect(mail.text).toContain('removed 10 days of premium');
    expect(mail.text).toContain('Reason: granted by mistake');

    const before = await rowsOf(member);
    const again = await removeGrant(admin, first.id, 'again');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ message: supportDeskMessages.grantAlreadyRemoved });
    const unknown = await removeGrant(admin, '00000000-0000-4000-8000-000000000000', 'none');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ message: supportDeskMessages.grantNotFound });
    expect(await rowsOf(member)).toEqual(before);
    expect((await testAuditTrail().verify(server.app.database.db)).problems).toEqual([]);
  });

  it('answers 401 to a visitor, 403 to a member and 404 for an unknown member, changing nothing', async () => {
    const member = await makeMember(server.app, 'refused');
    const request = grantRequest(2);
    expect((await grant(undefined, member.userId, request)).statusCode).toBe(401);
    const byMember = await grant(member, member.userId, request);
    expect(byMember.statusCode).toBe(403);
    expect(byMember.json()).toMatchObject({ message: supportDeskMessages.notAnOperator });
    expect((await removeGrant(undefined, member.userId, 'x')).statusCode).toBe(401);
    expect((await removeGrant(member, member.userId, 'x')).statusCode).toBe(403);
    const unknown = await grant(support, '00000000-0000-4000-8000-000000000000', request);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ message: supportDeskMessages.memberNotFound });
    const noReason = await grant(support, member.userId, { ...request, reason: '  ' });
    expect(noReason.statusCode).toBe(400);
    expect(await rowsOf(member)).toEqual({ grants: 0, purchases: 0, ledger: 0, audit: 0, mail: 0 });
  });
});
