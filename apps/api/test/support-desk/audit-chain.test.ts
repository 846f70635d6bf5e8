// The audit trail's chain (ADR 020), as `npm run audit:verify` checks it: every row holds after
// real actions; a row edited, removed or given another email in SQL (by someone who can switch
// the append-only trigger off) is named; a deleted member's pseudonym keeps the chain whole.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';

import { runAuditVerification } from '../../src/modules/audit/verify-command';
import { operatorCommand, testAuditTrail } from '../support/operators';
import { registerAndLogin } from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { useMovableClock } from '../support/two-step';

describe.each(testDatabaseKinds)('the audit chain on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());
  beforeEach(() => useMovableClock());
  afterEach(() => vi.useRealTimers());

  async function verify(): Promise<{ code: number; out: string[]; errors: string[] }> {
    const out: string[] = [];
    const errors: string[] = [];
    const code = await runAuditVerification({
      db: server.app.database.db,
      trail: testAuditTrail(),
      output: { out: (line) => out.push(line), error: (line) => errors.push(line) },
    });
    return { code, out, errors };
  }

  /** Runs a statement with the append-only trigger off, as a tamperer with the rights would. */
  async function tamper(statement: ReturnType<typeof sql>): Promise<void> {
    const { db } = server.app.database;
    await db.transaction().execute(async (transaction) => {
      await sql`alter table audit_events disable trigger audit_events_append_only`.execute(
        transaction,
      );
      await statement.execute(transaction);
      await sql`alter table audit_events enable trigger audit_events_append_only`.execute(
        transaction,
      );
    });
  }

  async function rows() {
    return server.app.database.db
      .selectFrom('auditEvents')
      .select(['sequence', 'id'])
      .orderBy('sequence')
      .execute();
  }

  it('holds after real actions, names an edited, a removed and a re-addressed row, and keeps a pseudonym', async () => {
    const emails = [uniqueEmail('chain-a'), uniqueEmail('chain-b'), uniqueEmail('chain-c')];
    for (const email of emails) {
      await registerAndLogin(server.app, email, 'chain passphrase');
      expect((await operatorCommand(server.app, ['grant', email, '--role', 'support'])).code).toBe(
        0,
      );
      expect((await operatorCommand(server.app, ['revoke', email])).code).toBe(0);
    }
    const clean = await verify();
    expect(clean.code, clean.errors.join('\n')).toBe(0);
    expect(clean.out[0]).toMatch(/^The audit trail holds: 6 rows, head hash [0-9a-f]{64}\.$/);

    // A deleted member's emails become his pseudonym: the chain still holds.
    const [first, second, third, fourth, fifth] = await rows();
    const account = await server.app.database.db
      .selectFrom('auditEvents')
      .select(['targetUserId'])
      .where('id', '=', String(first?.id))
      .executeTakeFirstOrThrow();
    await server.app.database.db
      .transaction()
      .execute((transaction) =>
        testAuditTrail().pseudonymise(transaction, String(account.targetUserId)),
      );
    const pseudonymised = await server.app.database.db
      .selectFrom('auditEvents')
      .select('targetEmail')
      .where('targetUserId', '=', String(account.targetUserId))
      .execute();
    expect(pseudonymised.map((row) => row.targetEmail)).toEqual([
      `deleted-member-${String(account.targetUserId).slice(0, 8)}`,
      `deleted-member-${String(account.targetUserId).slice(0, 8)}`,
    ]);
    expect((await verify()).code).toBe(0);

    // An edited reason.
    await tamper(sql`update audit_events set reason = 'nothing to see' where id = ${second?.id}`);
    // Another member's email put on a row (a pseudonym that is not his own does not pass either).
    await tamper(
      sql`update audit_events set target_email = 'someone@example.com' where id = ${third?.id}`,
    );
    // A removed row: the one after it no longer follows.
    await tamper(sql`delete from audit_events where id = ${fourth?.id}`);
    const broken = await verify();
    expect(broken.code).toBe(1);
    expect(broken.errors).toEqual([
      `audit row ${second?.sequence} (${second?.id}) was changed after it was written (its hash does not match)`,
      `audit row ${third?.sequence} (${third?.id}) its member's email was changed`,
      `audit row ${fifth?.sequence} (${fifth?.id}) does not follow the row before it (one was removed or slipped in)`,
      'The audit trail does NOT hold: 3 problem(s) in 5 rows.',
    ]);
  });
});
