// Adversarial review of what the support desk changes (ADR 020): an operator serving himself,
// support reaching for admin powers by idempotency keys, refunds raced, repeated or malformed,
// and the audit trail under parallel actions, failed actions and a deleted member. Each test
// fails if its attack works.
import { type Refund } from '@kegel/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { login, post, registerAndLogin } from '../support/accounts';
import {
  auditRowsAbout,
  deskCall,
  makeMember,
  MEMBER_PASSWORD,
  mailTemplatesFor,
  premiumEndOf,
  type TestMember,
} from '../support/desk-actions';
import {
  makeOperator,
  OPERATOR_PASSWORD,
  type TestOperator,
  testAuditTrail,
} from '../support/operators';
import { payOnSandboxPage } from '../support/stripe-events';
import { startTestServer, type TestServer } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { appCode, useMovableClock, waitForNextCode } from '../support/two-step';

describe.each(testDatabaseKinds)('review: support desk actions under attack on $name', (kind) => {
  let server: TestServer;
  let support: TestOperator;
  let admin: TestOperator;
  let otherAdmin: TestOperator;
  beforeAll(async () => {
    server = await startTestServer(kind);
    // Listening for real: the Stripe sandbox delivers its webhooks over HTTP.
    await server.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    useMovableClock();
    support ??= await makeOperator(server.app, 'support', 'attack-support');
    admin ??= await makeOperator(server.app, 'admin', 'attack-admin');
    otherAdmin ??= await makeOperator(server.app, 'admin', 'attack-admin-2');
  });
  afterEach(() => vi.useRealTimers());

  const grant = (operator: { accessToken: string }, memberId: string, body: unknown) =>
    deskCall(server.app, 'POST', `/ops/members/${memberId}/grants`, operator.accessToken, body);
  const refund = (operator: { accessToken: string }, purchaseId: string, body: unknown) =>
    deskCall(server.app, 'POST', `/ops/purchases/${purchaseId}/refund`, operator.accessToken, body);
  const note = (operator: { accessToken: string }, memberId: string, body: unknown) =>
    deskCall(server.app, 'POST', `/ops/members/${memberId}/notes`, operator.accessToken, body);

  async function auditRowCount(): Promise<number> {
    const { count } = await server.app.database.db
      .selectFrom('auditEvents')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(count);
  }

  async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  function purchasesOf(userId: string) {
    return server.app.database.db
      .selectFrom('purchases')
      .select(['id', 'amountCents', 'paymentIntentId', 'provider'])
      .where('userId', '=', userId)
      .orderBy('createdAt')
      .execute();
  }

  /** The account buys a week on the sandbox's checkout page; its purchase once the webhook granted it. */
  async function buy(account: { email: string; userId: string; accessToken: string }) {
    const known = (await purchasesOf(account.userId)).length;
    const started = await post(
      server.app,
      '/payments/stripe/new',
      { planId: '1-week', email: account.email, price: 0 },
      account.accessToken,
    );
    expect(started.statusCode, started.body).toBe(200);
    const paid = await payOnSandboxPage(started.json<{ paymentURL: string }>().paymentURL);
    expect(paid.status).toBe(303);
    const purchases = await eventually(
      () => purchasesOf(account.userId),
      (rows) => rows.length > known,
    );
    return purchases.at(-1)!;
  }

  async function refundsAtStripe(paymentIntentId: string) {
    const list = await (
      await server.app.stripe()
    ).refunds.list({ payment_intent: paymentIntentId });
    return list.data;
  }

  // --- an operator serving himself ----------------------------------------------------------

  it('refuses an operator granting premium days to his own account (support and admin alike)', async () => {
    for (const operator of [support, admin]) {
      const before = await premiumEndOf(server.app, operator);
      const rows = await auditRowCount();
      const own = await grant(operator, operator.userId, {
        days: 31,
        reason: 'I deserve it',
        idempotencyKey: `self-grant-${operator.userId}`,
      });
      expect(own.statusCode, `${operator.email}: ${own.body}`).toBe(403);
      expect(await premiumEndOf(server.app, operator)).toBe(before);
      expect(await auditRowCount()).toBe(rows);
    }
  });

  it('refuses an admin refunding a purchase of his own account', async () => {
    const purchase = await buy(admin);
    const own = await refund(admin, purchase.id, { reason: 'changed my mind' });
    expect(own.statusCode, own.body).toBe(403);
    expect(await refundsAtStripe(purchase.paymentIntentId!)).toEqual([]);
  });

  it("leaves no role behind an operator's deleted account, and records that the role went with it", async () => {
    const leaving = await makeOperator(server.app, 'support', 'attack-leaving');
    waitForNextCode();
    const deleted = await post(
      server.app,
      '/users/delete',
      { password: OPERATOR_PASSWORD, code: appCode(leaving.secret) },
      leaving.accessToken,
    );
    expect(deleted.statusCode, deleted.body).toBe(200);
    // Whoever signs up with the address next is no operator.
    const successor = await registerAndLogin(server.app, leaving.email, OPERATOR_PASSWORD);
    const status = await deskCall(server.app, 'GET', '/users/operator', successor.accessToken);
    expect(status.json<{ role: string | null }>().role).toBeNull();
    // The deletion is the one API call that writes `operators` (the row cascades): the trail
    // must show the role ending, as it shows every other change of a role.
    const rows = await auditRowsAbout(server.app, leaving.userId);
    expect(rows.map((row) => row.action)).toEqual(['operator.grant-role', 'operator.revoke-role']);
  });

  // --- support reaching for admin powers ----------------------------------------------------

  it("gives support no more than 31 days by an admin's idempotency key, nor by reusing his own key for more", async () => {
    const member = await makeMember(server.app, 'attack-key-tricks');
    const byAdmin = await grant(admin, member.userId, {
      days: 365,
      reason: 'year of goodwill',
      idempotencyKey: 'admin-key-365',
    });
    expect(byAdmin.statusCode, byAdmin.body).toBe(201);
    const endAfterAdmin = await premiumEndOf(server.app, member);
    // Replaying the admin's request as support: refused by the role, not answered from the key.
    const replay = await grant(support, member.userId, {
      days: 365,
      reason: 'year of goodwill',
      idempotencyKey: 'admin-key-365',
    });
    expect(replay.statusCode).toBe(403);
    const own = await grant(support, member.userId, {
      days: 31,
      reason: 'outage',
      idempotencyKey: 'support-key-31',
    });
    expect(own.statusCode, own.body).toBe(201);
    for (const days of [32, 3650]) {
      const more = await grant(support, member.userId, {
        days,
        reason: 'outage',
        idempotencyKey: 'support-key-31',
      });
      expect(more.statusCode, `${days} days: ${more.body}`).toBe(403);
    }
    const removal = await deskCall(
      server.app,
      'DELETE',
      `/ops/grants/${byAdmin.json<{ id: string }>().id}`,
      support.accessToken,
      { reason: 'support tries to remove' },
    );
    expect(removal.statusCode).toBe(403);
    const end = new Date((await premiumEndOf(server.app, member))!).getTime();
    expect(end - new Date(endAfterAdmin!).getTime()).toBe(31 * 24 * 3600_000);
  });

  it('grants once per member for one key: the same key on another member is his own grant, and other days or reason with it are 409, even at once', async () => {
    const first = await makeMember(server.app, 'attack-key-first');
    const second = await makeMember(server.app, 'attack-key-second');
    const body = { days: 3, reason: 'outage', idempotencyKey: 'shared-key-0001' };
    const answers = await Promise.all([
      grant(support, first.userId, body),
      grant(support, first.userId, { ...body, days: 30 }),
      grant(support, first.userId, { ...body, reason: 'another outage' }),
      grant(support, first.userId, body),
      grant(support, second.userId, body),
    ]);
    const statuses = answers.map((answer) => answer.statusCode);
    // The first and fourth answer one grant; the second and third conflict with whichever won.
    const firstGrants = new Set(
      [answers[0], answers[1], answers[2], answers[3]]
        .filter((answer) => answer.statusCode === 201)
        .map((answer) => answer.json<{ id: string }>().id),
    );
    expect(firstGrants.size, statuses.join()).toBe(1);
    expect(statuses.filter((status) => status === 409).length, statuses.join()).toBeGreaterThan(0);
    expect(statuses[4]).toBe(201);
    const grantsOf = async (member: TestMember) =>
      (await auditRowsAbout(server.app, member.userId)).filter((row) => row.action === 'grant.add');
    expect(await grantsOf(first)).toHaveLength(1);
    expect(await grantsOf(second)).toHaveLength(1);
  });

  it('removes a grant once when two admins remove it at once: one row, one mail, its days out once', async () => {
    const member = await makeMember(server.app, 'attack-double-removal');
    const before = await premiumEndOf(server.app, member);
    const granted = await grant(admin, member.userId, {
      days: 60,
      reason: 'goodwill',
      idempotencyKey: 'double-removal-key',
    });
    expect(granted.statusCode, granted.body).toBe(201);
    const grantId = granted.json<{ id: string }>().id;
    const answers = await Promise.all(
      [admin, otherAdmin].map((operator) =>
        deskCall(server.app, 'DELETE', `/ops/grants/${grantId}`, operator.accessToken, {
          reason: 'granted by mistake',
        }),
      ),
    );
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
    const actions = (await auditRowsAbout(server.app, member.userId)).map((row) => row.action);
    expect(actions).toEqual(['grant.add', 'grant.remove']);
    const mails = await mailTemplatesFor(server.app, member.userId);
    expect(mails.filter((template) => template === 'support-grant-removed')).toHaveLength(1);
    expect(await premiumEndOf(server.app, member)).toBe(before);
  });

  // --- refunds ------------------------------------------------------------------------------

  it('never refunds more than was paid when two part refunds that each fit race', async () => {
    const member = await makeMember(server.app, 'attack-over-refund');
    const purchase = await buy(member);
    const part = Math.floor(purchase.amountCents * 0.6);
    const answers = await Promise.all([
      refund(admin, purchase.id, { amountCents: part, reason: 'first half' }),
      refund(otherAdmin, purchase.id, { amountCents: part + 1, reason: 'second half' }),
    ]);
    const made = await refundsAtStripe(purchase.paymentIntentId!);
    const total = made.reduce((sum, item) => sum + item.amount, 0);
    expect(total).toBeLessThanOrEqual(purchase.amountCents);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
    const rows = (await auditRowsAbout(server.app, member.userId)).filter(
      (row) => row.action === 'refund.create',
    );
    expect(rows).toHaveLength(made.length);
  });

  it('answers two admins refunding the same purchase at once with one refund, never a 502', async () => {
    // Three purchases, each refunded by both admins at once: the race (both read what is left
    // before either refunds) needs no luck to show on at least one of them.
    const purchases = [];
    for (const n of [1, 2, 3]) {
      purchases.push(await buy(await makeMember(server.app, `attack-two-admins-${n}`)));
    }
    const answers = await Promise.all(
      purchases.flatMap((purchase) =>
        [admin, otherAdmin].map(async (operator) => ({
          purchase,
          answer: await refund(operator, purchase.id, { reason: 'bought twice' }),
        })),
      ),
    );
    const notAnswered = answers
      .filter(({ answer }) => answer.statusCode !== 200 && answer.statusCode !== 409)
      .map(({ answer }) => `${answer.statusCode} ${answer.body}`);
    expect(notAnswered).toEqual([]);
    for (const purchase of purchases) {
      const made = await refundsAtStripe(purchase.paymentIntentId!);
      expect(made).toHaveLength(1);
      const ids = answers
        .filter((entry) => entry.purchase === purchase && entry.answer.statusCode === 200)
        .map((entry) => entry.answer.json<Refund>().id);
      expect(new Set(ids)).toEqual(new Set([made[0]!.id]));
    }
  });

  it('refuses negative, zero, fractional, textual, huge and missing-reason refunds, asking Stripe nothing and recording nothing', async () => {
    const member = await makeMember(server.app, 'attack-amounts');
    const purchase = await buy(member);
    const rows = await auditRowCount();
    const bodies: Array<[unknown, number]> = [
      [{ amountCents: -100, reason: 'negative' }, 400],
      [{ amountCents: 0, reason: 'zero' }, 400],
      [{ amountCents: 1.5, reason: 'fraction' }, 400],
      [{ amountCents: '100', reason: 'text' }, 400],
      [{ amountCents: 1e21, reason: 'huge' }, 400],
      [{ amountCents: Number.MAX_SAFE_INTEGER, reason: 'largest' }, 409],
      [{ amountCents: purchase.amountCents + 1, reason: 'one cent too many' }, 409],
      [{ amountCents: null, reason: 'null' }, 400],
      [{ amountCents: 100 }, 400],
      [{ amountCents: 100, reason: '   ' }, 400],
      [{ amountCents: 100, reason: 'x'.repeat(501) }, 400],
    ];
    for (const [body, status] of bodies) {
      const answer = await refund(admin, purchase.id, body);
      expect(answer.statusCode, `${JSON.stringify(body)}: ${answer.body}`).toBe(status);
    }
    expect(await refundsAtStripe(purchase.paymentIntentId!)).toEqual([]);
    expect(await auditRowCount()).toBe(rows);
  });

  // --- the audit trail ----------------------------------------------------------------------

  it('keeps one unbroken chain, each row naming its own operator and role, when many actions run at once', async () => {
    const members = await Promise.all([0, 1, 2].map((n) => makeMember(server.app, `chain-${n}`)));
    const actions = members.flatMap((member, n) => [
      note(support, member.userId, { text: `support note ${n}` }),
      note(admin, member.userId, { text: `admin note ${n}` }),
      grant(support, member.userId, {
        days: 2,
        reason: `support grant ${n}`,
        idempotencyKey: `chain-s-${n}-key`,
      }),
      grant(admin, member.userId, {
        days: 40,
        reason: `admin grant ${n}`,
        idempotencyKey: `chain-a-${n}-key`,
      }),
      deskCall(server.app, 'GET', `/ops/members/${member.userId}`, otherAdmin.accessToken),
      deskCall(server.app, 'GET', `/ops/members/${member.userId}/view`, support.accessToken),
      deskCall(
        server.app,
        'POST',
        `/ops/members/${member.userId}/sessions/revoke`,
        admin.accessToken,
        {
          reason: `sign out ${n}`,
        },
      ),
    ]);
    const answers = await Promise.all(actions);
    for (const answer of answers) expect(answer.statusCode, answer.body).toBeLessThan(300);
    const report = await testAuditTrail().verify(server.app.database.db);
    expect(report.problems).toEqual([]);
    const byOperator = {
      [support.userId]: support,
      [admin.userId]: admin,
      [otherAdmin.userId]: otherAdmin,
    };
    for (const member of members) {
      const rows = await auditRowsAbout(server.app, member.userId);
      expect(rows).toHaveLength(7);
      for (const row of rows) {
        const operator = byOperator[row.actorId!];
        expect(operator, JSON.stringify(row)).toBeDefined();
        expect(row.actorEmail).toBe(operator!.email);
        expect(row.actorRole).toBe(operator === support ? 'support' : 'admin');
        expect(row.targetEmail).toBe(member.email);
        const expectedActor =
          row.reason?.startsWith('support') || row.action === 'member.view-as'
            ? support
            : row.action === 'member.view'
              ? otherAdmin
              : admin;
        expect(row.actorId, `${row.action} ${row.reason}`).toBe(expectedActor.userId);
      }
    }
  });

  it("leaves a row when an operator reads a member's timeline without opening his story", async () => {
    const member = await makeMember(server.app, 'attack-unseen-reader');
    // The timeline names his sign-ins (addresses, devices), email changes and notes: what the
    // story's member.view row is there to account for. Read alone, straight through the API:
    const timeline = await deskCall(
      server.app,
      'GET',
      `/ops/members/${member.userId}/timeline`,
      support.accessToken,
    );
    expect(timeline.statusCode, timeline.body).toBe(200);
    expect(timeline.body).toContain('Signed in');
    const rows = await auditRowsAbout(server.app, member.userId);
    // One row of his reading (member.view, or an action of its own), naming who read.
    expect(rows.map((row) => row.actorId)).toEqual([support.userId]);
  });

  it('writes no row for an action that failed or was refused', async () => {
    const member = await makeMember(server.app, 'attack-failed');
    const granted = await grant(admin, member.userId, {
      days: 5,
      reason: 'goodwill',
      idempotencyKey: 'failed-test-key',
    });
    expect(granted.statusCode).toBe(201);
    const grantId = granted.json<{ id: string }>().id;
    const removed = await deskCall(
      server.app,
      'DELETE',
      `/ops/grants/${grantId}`,
      admin.accessToken,
      {
        reason: 'typo',
      },
    );
    expect(removed.statusCode).toBe(200);
    const rows = await auditRowCount();
    const failures = [
      // removed already
      deskCall(server.app, 'DELETE', `/ops/grants/${grantId}`, admin.accessToken, {
        reason: 'again',
      }),
      // the key of another grant
      grant(admin, member.userId, {
        days: 6,
        reason: 'goodwill',
        idempotencyKey: 'failed-test-key',
      }),
      // a support grant is no Stripe purchase
      refund(admin, (await purchasesOf(member.userId))[0]!.id, { reason: 'refund a grant' }),
      // an unknown member
      note(support, '00000000-0000-4000-8000-000000000000', { text: 'nobody' }),
      // a malformed body
      note(support, member.userId, { text: 42 }),
      grant(support, member.userId, {
        days: '7',
        reason: 'text days',
        idempotencyKey: 'text-days-key',
      }),
    ];
    for (const failure of failures) expect((await failure).statusCode).toBeGreaterThanOrEqual(400);
    expect(await auditRowCount()).toBe(rows);
  });

  it('takes the actor from the session, never from fields slipped into the body', async () => {
    const member = await makeMember(server.app, 'attack-extra-fields');
    const answer = await note(support, member.userId, {
      text: 'plain note',
      actorId: admin.userId,
      actorEmail: admin.email,
      actorRole: 'admin',
      role: 'admin',
      userId: admin.userId,
    });
    expect(answer.statusCode, answer.body).toBe(201);
    const [row] = await auditRowsAbout(server.app, member.userId);
    expect(row).toMatchObject({
      actorId: support.userId,
      actorEmail: support.email,
      actorRole: 'support',
      reason: 'plain note',
    });
  });

  it("leaves a deleted member's email nowhere in the trail, not even where an operator typed it in a note or a reason", async () => {
    const member = await makeMember(server.app, 'attack-forgotten');
    expect(
      (
        await note(support, member.userId, {
          text: `He writes from ${member.email} and asks for a refund`,
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (
        await grant(support, member.userId, {
          days: 3,
          reason: `outage reported by ${member.email.toUpperCase()}`,
          idempotencyKey: 'forgotten-grant-key',
        })
      ).statusCode,
    ).toBe(201);
    const { accessToken } = await login(server.app, member.email, MEMBER_PASSWORD);
    const deleted = await post(
      server.app,
      '/users/delete',
      { password: MEMBER_PASSWORD },
      accessToken,
    );
    expect(deleted.statusCode, deleted.body).toBe(200);

    const rows = await server.app.database.db.selectFrom('auditEvents').selectAll().execute();
    const leaks = rows.filter((row) =>
      JSON.stringify(row).toLowerCase().includes(member.email.toLowerCase()),
    );
    expect(leaks.map((row) => [row.action, row.reason])).toEqual([]);
    const audit = await deskCall(
      server.app,
      'GET',
      `/ops/audit?member=${member.userId}`,
      admin.accessToken,
    );
    expect(audit.statusCode).toBe(200);
    expect(audit.body.toLowerCase()).not.toContain(member.email.toLowerCase());
  });
});
