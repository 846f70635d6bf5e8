// Sign-in history (ADR 019): the member's latest 20 sign-ins and failed password attempts, newest
// first, his own only; the data export has them all; the pruning job forgets them after 90 days.
import type { DataExport, SignInItem } from '@kegel/contract';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { createSessionPruning } from '../../src/modules/auth/session-pruning';
import { insertSignInEvent } from '../../src/modules/auth/sign-in-event-repo';
import { register, registerAndLogin } from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import {
  appCode,
  passwordStep,
  turnOnTwoStep,
  useMovableClock,
  verifySignIn,
  waitForNextCode,
  wrongCodeFor,
} from '../support/two-step';
import { testDatabaseKinds } from '../support/test-databases';

const CHROME_ON_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const PASSWORD = 'correct horse';
const DAY_MS = 24 * 60 * 60 * 1000;
const silentLog = { info: () => {}, error: () => {} };

describe.each(testDatabaseKinds)('the sign-in history on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());
  afterEach(() => vi.useRealTimers());

  const db = () => server.app.database.db;

  function attempt(email: string, password: string, address = '203.0.113.7') {
    return server.app.inject({
      method: 'POST',
      url: '/api/auth/local/login/email',
      headers: { 'user-agent': CHROME_ON_MAC },
      remoteAddress: address,
      payload: { email, password },
    });
  }

  async function signIn(email: string, address?: string): Promise<string> {
    const response = await attempt(email, PASSWORD, address);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ accessToken: string }>().accessToken;
  }

  async function history(accessToken: string): Promise<SignInItem[]> {
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/users/sign-ins',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: SignInItem[] }>().data;
  }

  it('lists sign-ins and wrong passwords newest first, with method, device and address', async () => {
    const email = uniqueEmail('history');
    await register(server.app, email, PASSWORD);
    await signIn(email);
    expect((await attempt(email, 'wrong guess', '198.51.100.9')).statusCode).toBe(401);
    const accessToken = await signIn(email, '203.0.113.8');

    const items = await history(accessToken);
    expect(items.map(({ outcome, address }) => ({ outcome, address }))).toEqual([
      { outcome: 'success', address: '203.0.113.8' },
      { outcome: 'failure', address: '198.51.100.9' },
      { outcome: 'success', address: '203.0.113.7' },
    ]);
    expect(items[0]).toMatchObject({ method: 'password', device: 'Chrome on macOS' });
    const times = items.map((item) => Date.parse(item.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('lists a wrong two-step code as a failed attempt, and the sign-in it then completed', async () => {
    useMovableClock();
    const email = uniqueEmail('history-two-step');
    const { accessToken } = await registerAndLogin(server.app, email, PASSWORD);
    const { secret } = await turnOnTwoStep(server.app, accessToken);
    waitForNextCode();
    const mfaToken = await passwordStep(server.app, email, PASSWORD);
    const wrong = await verifySignIn(server.app, { mfaToken, code: wrongCodeFor(secret) });
    expect(wrong.statusCode, wrong.body).toBe(401);
    const right = await verifySignIn(server.app, { mfaToken, code: appCode(secret) });
    expect(right.statusCode, right.body).toBe(200);

    const items = await history(right.json<{ accessToken: string }>().accessToken);
    expect(items.slice(0, 2).map(({ outcome, method }) => ({ outcome, method }))).toEqual([
      { outcome: 'success', method: 'password' },
      { outcome: 'failure', method: 'two-step' },
    ]);
  });

  it('lists two events of the same instant in the order they were written, newest first', async () => {
    const email = uniqueEmail('history-same-instant');
    const { accessToken } = await registerAndLogin(server.app, email, PASSWORD);
    const { sub: userId } = JSON.parse(
      Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString(),
    ) as { sub: string };
    const where = {
      deviceLabel: 'Firefox on Linux',
      clientAddress: '192.0.2.1',
      network: '192.0.2.0/24',
    };
    // One transaction: now() is one instant for both rows.
    await db()
      .transaction()
      .execute(async (transaction) => {
        for (let round = 0; round < 5; round += 1) {
          await insertSignInEvent(transaction, {
            userId,
            method: 'two-step',
            outcome: 'failure',
            ...where,
          });
          await insertSignInEvent(transaction, {
            userId,
            method: 'password',
            outcome: 'success',
            ...where,
          });
        }
      });
    const items = (await history(accessToken)).slice(0, 10);
    expect(items.map(({ outcome }) => outcome)).toEqual(
      Array.from({ length: 5 }, () => ['success', 'failure']).flat(),
    );
  });

  it('lists at most 20, and only the own account', async () => {
    const email = uniqueEmail('many');
    const other = uniqueEmail('other');
    await register(server.app, email, PASSWORD);
    await register(server.app, other, PASSWORD);
    // Each from its own address: five wrong passwords from one address hold it back a while.
    for (let index = 0; index < 22; index += 1) {
      expect((await attempt(email, `wrong ${index}`, `198.51.100.${index + 1}`)).statusCode).toBe(
        401,
      );
    }
    const accessToken = await signIn(email);
    await signIn(other, '192.0.2.77');
    const items = await history(accessToken);
    expect(items).toHaveLength(20);
    expect(items[0]!.outcome).toBe('success');
    expect(items.filter((item) => item.address === '192.0.2.77')).toEqual([]);
  });

  it('records nothing for an unknown email', async () => {
    const before = await db().selectFrom('signInEvents').select('id').execute();
    expect((await attempt(uniqueEmail('nobody'), PASSWORD)).statusCode).toBe(401);
    const after = await db().selectFrom('signInEvents').select('id').execute();
    expect(after).toHaveLength(before.length);
  });

  it('is part of the data export', async () => {
    const email = uniqueEmail('exported');
    await register(server.app, email, PASSWORD);
    expect((await attempt(email, 'wrong guess')).statusCode).toBe(401);
    const accessToken = await signIn(email);
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/users/export',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    const exported = response.json<DataExport>();
    expect(exported.signIns.map((item) => item.outcome)).toEqual(['failure', 'success']);
    expect(exported.signIns[1]).toMatchObject({
      method: 'password',
      device: 'Chrome on macOS',
      address: '203.0.113.7',
    });
  });

  it('forgets events after 90 days (the session pruning job)', async () => {
    const email = uniqueEmail('pruned-history');
    await register(server.app, email, PASSWORD);
    await signIn(email);
    const accessToken = await signIn(email, '203.0.113.9');
    const userIds = db().selectFrom('users').select('id').where('email', '=', email);
    const [oldest] = await db()
      .selectFrom('signInEvents')
      .select('id')
      .where('userId', 'in', userIds)
      .orderBy('createdAt')
      .execute();
    await db()
      .updateTable('signInEvents')
      .set({ createdAt: new Date(Date.now() - 91 * DAY_MS) })
      .where('id', '=', oldest!.id)
      .execute();
    expect(await createSessionPruning({ db: db(), log: silentLog }).pruneOnce()).toBeGreaterThan(0);
    const items = await history(accessToken);
    expect(items.map((item) => item.address)).toEqual(['203.0.113.9']);
  });

  it("keeps an account's latest sign-in however old, so its next sign-in is not taken for a first", async () => {
    const email = uniqueEmail('dormant');
    await register(server.app, email, PASSWORD);
    await signIn(email);
    expect((await attempt(email, 'wrong guess')).statusCode).toBe(401);
    const userIds = db().selectFrom('users').select('id').where('email', '=', email);
    await db()
      .updateTable('signInEvents')
      .set({ createdAt: new Date(Date.now() - 200 * DAY_MS) })
      .where('userId', 'in', userIds)
      .execute();
    await createSessionPruning({ db: db(), log: silentLog }).pruneOnce();
    const left = await db()
      .selectFrom('signInEvents')
      .select('outcome')
      .where('userId', 'in', userIds)
      .execute();
    expect(left).toEqual([{ outcome: 'success' }]);
    // Back after months, from the same device and network: not seen in 30 days, so a notice.
    await signIn(email);
    const notices = await db()
      .selectFrom('outboxEmails')
      .select('id')
      .where('recipient', '=', email)
      .where('template', '=', 'new-sign-in')
      .execute();
    expect(notices).toHaveLength(1);
  });

  it('never fails a sign-in or a wrong-password answer when recording fails', async () => {
    const email = uniqueEmail('unrecorded');
    await register(server.app, email, PASSWORD);
    await sql`alter table sign_in_events rename to sign_in_events_away`.execute(db());
    try {
      expect((await attempt(email, 'wrong guess')).statusCode).toBe(401);
      await signIn(email);
    } finally {
      await sql`alter table sign_in_events_away rename to sign_in_events`.execute(db());
    }
  });
});
