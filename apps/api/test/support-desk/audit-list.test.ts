// The audit trail as the support desk lists it (ADR 020): newest first, filtered by operator,
// member, action and time, a page at a time; reading it writes nothing.
import type { AuditResponse, AuditRow } from '@kegel/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { pseudonymOf } from '../../src/modules/audit';
import { listAudit } from '../../src/modules/support-desk/audit-list';
import { registerAndLogin } from '../support/accounts';
import { callApi, makeOperator, testAuditTrail, type TestOperator } from '../support/operators';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { useMovableClock } from '../support/two-step';

describe.each(testDatabaseKinds)('the audit list on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());
  beforeEach(() => useMovableClock());
  afterEach(() => vi.useRealTimers());

  async function member(label: string) {
    const email = uniqueEmail(label);
    const { accessToken } = await registerAndLogin(server.app, email, 'correct horse');
    const profile = await callApi(server.app, 'GET', '/users/profile', accessToken);
    return { email, id: profile.json<{ id: string }>().id };
  }

  async function open(operator: TestOperator, path: string): Promise<void> {
    const response = await callApi(server.app, 'GET', path, operator.accessToken);
    expect(response.statusCode, response.body).toBe(200);
  }

  async function list(operator: TestOperator, query: Record<string, string>) {
    const response = await callApi(
      server.app,
      'GET',
      `/ops/audit?${new URLSearchParams(query).toString()}`,
      operator.accessToken,
    );
    expect(response.statusCode, response.body).toBe(200);
    return response.json<AuditResponse>();
  }

  const summary = (rows: AuditRow[]) =>
    rows.map((row) => `${row.action} ${row.member?.email} by ${row.actor.email}`);

  it('filters by operator, member, action and time, newest first, and pages', async () => {
    const support = await makeOperator(server.app, 'support', 'audit-support');
    const admin = await makeOperator(server.app, 'admin', 'audit-admin');
    const first = await member('audited-first');
    const second = await member('audited-second');

    await open(support, `/ops/members/${first.id}`);
    vi.setSystemTime(Date.now() + 60_000);
    await open(admin, `/ops/members/${second.id}`);
    vi.setSystemTime(Date.now() + 60_000);
    await open(support, `/ops/members/${second.id}/view`);
    const rowsBefore = await server.app.database.db
      .selectFrom('auditEvents')
      .select('id')
      .execute();

    const bySupport = await list(admin, { operator: support.email.toUpperCase() });
    expect(summary(bySupport.data)).toEqual([
      `member.view-as ${second.email} by ${support.email}`,
      `member.view ${first.email} by ${support.email}`,
    ]);
    expect(bySupport.nextCursor).toBeNull();
    expect(bySupport.data[1]).toMatchObject({
      actor: { id: support.userId, email: support.email, role: 'support' },
      member: { id: first.id, email: first.email },
      reason: null,
      changes: null,
      requestId: expect.any(String),
      clientAddress: expect.any(String),
    });
    expect(bySupport.data[0]!.sequence).toBeGreaterThan(bySupport.data[1]!.sequence);

    expect(summary((await list(support, { operator: admin.userId })).data)).toEqual([
      `member.view ${second.email} by ${admin.email}`,
    ]);
    expect(summary((await list(support, { member: second.email })).data)).toEqual([
      `member.view-as ${second.email} by ${support.email}`,
      `member.view ${second.email} by ${admin.email}`,
    ]);
    expect(summary((await list(support, { member: first.id })).data)).toEqual([
      `member.view ${first.email} by ${support.email}`,
    ]);
    expect(
      summary((await list(support, { member: second.id, action: 'member.view' })).data),
    ).toEqual([`member.view ${second.email} by ${admin.email}`]);

    // Time: from and to, both included.
    const [viewAs, adminView] = (await list(support, { member: second.id })).data;
    expect(summary((await list(support, { member: second.id, from: viewAs!.at })).data)).toEqual([
      `member.view-as ${second.email} by ${support.email}`,
    ]);
    expect(summary((await list(support, { member: second.id, to: adminView!.at })).data)).toEqual([
      `member.view ${second.email} by ${admin.email}`,
    ]);

    // The role changes made by the command line are rows too, about the operator.
    const roleRows = await list(support, { member: admin.email, action: 'operator.grant-role' });
    expect(roleRows.data).toEqual([
      expect.objectContaining({ actor: expect.objectContaining({ role: 'command line' }) }),
    ]);

    // A page at a time: each row once, newest first.
    const { db } = server.app.database;
    const paged: AuditRow[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await listAudit(db, { operator: support.userId, cursor }, 1);
      paged.push(...page.data);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(paged).toEqual(bySupport.data);
    const everything = await list(support, {});
    expect(everything.data.length).toBe(rowsBefore.length);
    const cursorResponse = await callApi(
      server.app,
      'GET',
      `/ops/audit?cursor=${everything.data[0]!.sequence}`,
      support.accessToken,
    );
    expect(cursorResponse.json<AuditResponse>().data).toEqual(everything.data.slice(1));
    const bad = await callApi(server.app, 'GET', '/ops/audit?cursor=x', support.accessToken);
    expect(bad.statusCode).toBe(400);

    // Listing wrote nothing.
    expect(await db.selectFrom('auditEvents').select('id').execute()).toHaveLength(
      rowsBefore.length,
    );
  });

  it("finds a deleted member's rows by his pseudonym, and parses what changed", async () => {
    const operator = await makeOperator(server.app, 'support', 'audit-pseudonym');
    const gone = await member('audit-gone');
    await open(operator, `/ops/members/${gone.id}`);
    const trail = testAuditTrail();
    const { db } = server.app.database;
    await db.transaction().execute(async (transaction) => {
      await trail.record(
        transaction,
        {
          actor: { id: operator.userId, email: operator.email, role: 'support' },
          origin: { requestId: 'req-test', clientAddress: '192.0.2.1' },
        },
        {
          action: 'grant.add',
          target: { userId: gone.id, email: gone.email },
          reason: 'service outage',
          changes: { before: { endsAt: null }, after: { endsAt: '2030-01-01T00:00:00.000Z' } },
        },
      );
      // What deleting the account does to his rows.
      await trail.pseudonymise(transaction, gone.id);
    });

    const found = await list(operator, { member: pseudonymOf(gone.id).toUpperCase() });
    expect(found.data.map((row) => row.action)).toEqual(['grant.add', 'member.view']);
    expect(found.data[0]).toMatchObject({
      member: { id: gone.id, email: pseudonymOf(gone.id) },
      reason: 'service outage',
      changes: { before: { endsAt: null }, after: { endsAt: '2030-01-01T00:00:00.000Z' } },
    });
    expect((await trail.verify(db)).problems).toEqual([]);
  });
});
