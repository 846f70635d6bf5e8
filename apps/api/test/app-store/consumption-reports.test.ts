import type { DataExport } from '@kegel/contract';
import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { AppleRefundPreference } from '../../src/config';
import { createConsumptionReports } from '../../src/modules/app-store/consumption-reports';
import { registerAndLogin } from '../support/accounts';
import {
  appStoreEnv,
  deliverNotification,
  monthFrom,
  postTransaction,
  signedNotification,
  startTestAppStoreSandbox,
} from '../support/app-store';
import { captureLog, LOG_LEVEL, type LogLine } from '../support/log-capture';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const HOUR_MS = 60 * 60 * 1000;
const MINUTE_MS = 60 * 1000;

/**
 * Apple's refund requests (CONSUMPTION_REQUEST) answered with Send Consumption Information (V2),
 * only for a member who consents, once per request, retried while Apple waits: through the
 * server's own App Store sandbox, which checks each call as Apple does and records it.
 */
describe.each(testDatabaseKinds)("Apple's refund requests on $name", (kind) => {
  let server: TestServer;
  let sandbox: AppStoreSandbox;
  beforeAll(async () => {
    server = await startTestServer(kind);
    const running = server.app.appStoreSandbox;
    if (!running) throw new Error('expected the App Store sandbox');
    sandbox = running;
  });
  afterAll(() => server.close());

  /** The job as every process runs it, at `now() + offsetMs`, logging into `lines`. */
  function job(
    options: { refundPreference?: AppleRefundPreference; offsetMs?: () => number } = {},
  ) {
    const lines: LogLine[] = [];
    const log = (level: number) => (details: object, msg: string) =>
      lines.push({ level, msg, ...details });
    const reports = createConsumptionReports({
      db: server.app.database.db,
      serverApi: server.app.appStoreServerApi,
      refundPreference: options.refundPreference ?? { kind: 'none' },
      log: { info: log(LOG_LEVEL.info), error: log(LOG_LEVEL.error) },
      now: () => new Date(Date.now() + (options.offsetMs?.() ?? 0)),
    });
    return { runDueOnce: () => reports.runDueOnce(), lines };
  }

  async function setConsent(accessToken: string, consent: boolean): Promise<void> {
    const response = await server.app.inject({
      method: 'PUT',
      url: '/api/users/preferences',
      headers: { authorization: `Bearer ${accessToken}` },
      payload: { appleConsumptionConsent: consent },
    });
    expect(response.statusCode, response.body).toBe(200);
  }

  /** A member (consenting or not) whose iPhone subscription the server knows as his. */
  async function subscriber(consent: boolean, productId = 'premium.week') {
    const { accessToken } = await registerAndLogin(
      server.app,
      uniqueEmail('refund'),
      'correct horse',
    );
    if (consent) await setConsent(accessToken, true);
    const { originalTransactionId, signedTransaction } = await sandbox.subscribe({
      productId,
      deliver: false,
    });
    const posted = await postTransaction(server.app, accessToken, signedTransaction);
    expect(posted.statusCode, posted.body).toBe(200);
    return { accessToken, originalTransactionId };
  }

  /** The customer asks Apple for a refund: its CONSUMPTION_REQUEST, delivered `times` times. */
  async function askAppleForRefund(originalTransactionId: string, times = 1): Promise<void> {
    const signedPayload = await sandbox.requestConsumption(originalTransactionId, {
      deliver: false,
      reason: 'UNSATISFIED_WITH_PURCHASE',
    });
    for (let delivery = 0; delivery < times; delivery += 1) {
      const response = await deliverNotification(server.app, signedPayload);
      expect(response.statusCode, response.body).toBe(200);
    }
  }

  async function exportOf(accessToken: string): Promise<DataExport> {
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/users/export',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<DataExport>();
  }

  const reportsAbout = (transactionId: string) =>
    sandbox.consumptionReports().filter((report) => report.transactionId === transactionId);

  function reportRow(transactionId: string) {
    return server.app.database.db
      .selectFrom('appStoreConsumptionReports')
      .selectAll()
      .where('transactionId', '=', transactionId)
      .execute();
  }

  it("lists the requests answered for him in his data export, with his consent's time", async () => {
    const { accessToken, originalTransactionId } = await subscriber(true);
    await askAppleForRefund(originalTransactionId);
    const pending = await exportOf(accessToken);
    expect(pending.preferences).toMatchObject({ appleConsumptionConsent: true });
    expect(pending.preferences.appleConsumptionConsentChangedAt).not.toBeNull();
    expect(pending.appleRefundRequests).toEqual([
      {
        requestedAt: expect.any(String),
        reason: 'UNSATISFIED_WITH_PURCHASE',
        outcome: null,
        closedAt: null,
      },
    ]);
    await job().runDueOnce();
    expect((await exportOf(accessToken)).appleRefundRequests).toEqual([
      expect.objectContaining({ outcome: 'sent', closedAt: expect.any(String) }),
    ]);
  });

  it("answers a consenting member's request once, with his consent and the ledger's figures", async () => {
    const { originalTransactionId } = await subscriber(true);
    await askAppleForRefund(originalTransactionId);
    await job().runDueOnce();

    expect(reportsAbout(originalTransactionId).map((report) => report.body)).toEqual([
      { customerConsented: true, deliveryStatus: 'DELIVERED', sampleContentProvided: true },
    ]);
    const [row] = await reportRow(originalTransactionId);
    expect(row).toMatchObject({
      outcome: 'sent',
      reason: 'UNSATISFIED_WITH_PURCHASE',
      attempts: 1,
    });
    const sent = JSON.parse(row?.sentRequest ?? '{}') as {
      facts: {
        usedShare: number;
        delivered: boolean;
        accountAgeDays: number;
        earlierRefunds: number;
      };
    };
    expect(sent.facts).toMatchObject({ delivered: true, accountAgeDays: 0, earlierRefunds: 0 });
    expect(sent.facts.usedShare).toBeGreaterThanOrEqual(0);
    expect(sent.facts.usedShare).toBeLessThan(0.01);

    // Answered: another run sends nothing more.
    await job().runDueOnce();
    expect(reportsAbout(originalTransactionId)).toHaveLength(1);
  });

  it('counts the refunds of his earlier purchases', async () => {
    const { accessToken, originalTransactionId: first } = await subscriber(true);
    const refunded = await sandbox.refund(first, { deliver: false });
    expect((await deliverNotification(server.app, refunded)).statusCode).toBe(200);
    const { originalTransactionId: second, signedTransaction } = await sandbox.subscribe({
      productId: 'premium.month',
      deliver: false,
    });
    expect((await postTransaction(server.app, accessToken, signedTransaction)).statusCode).toBe(
      200,
    );
    await askAppleForRefund(second);
    await job().runDueOnce();
    const [row] = await reportRow(second);
    expect(JSON.parse(row?.sentRequest ?? '{}')).toMatchObject({
      facts: { delivered: true, earlierRefunds: 1 },
    });
  });

  it('sends once for five deliveries of the same request', async () => {
    const { originalTransactionId } = await subscriber(true);
    await askAppleForRefund(originalTransactionId, 5);
    await Promise.all([job().runDueOnce(), job().runDueOnce(), job().runDueOnce()]);
    expect(reportsAbout(originalTransactionId)).toHaveLength(1);
    expect(await reportRow(originalTransactionId)).toHaveLength(1);
  });

  it('sends nothing for a member who has not consented', async () => {
    const { originalTransactionId } = await subscriber(false);
    await askAppleForRefund(originalTransactionId);
    await job().runDueOnce();
    expect(reportsAbout(originalTransactionId)).toEqual([]);
    expect(await reportRow(originalTransactionId)).toEqual([]);
  });

  it('sends nothing once the member withdrew his consent before the job ran', async () => {
    const { accessToken, originalTransactionId } = await subscriber(true);
    await askAppleForRefund(originalTransactionId);
    await setConsent(accessToken, false);
    const { runDueOnce, lines } = job();
    await runDueOnce();
    expect(reportsAbout(originalTransactionId)).toEqual([]);
    expect(await reportRow(originalTransactionId)).toMatchObject([
      { outcome: 'consent-withdrawn' },
    ]);
    expect(lines.filter((line) => /withdrew his consent/.test(line.msg ?? ''))).toHaveLength(1);

    // Consent given again later does not revive an answer that was dropped.
    await setConsent(accessToken, true);
    await job().runDueOnce();
    expect(reportsAbout(originalTransactionId)).toEqual([]);
  });

  it('retries after the App Store failed twice, 1 then 2 minutes later, and sends once', async () => {
    const { originalTransactionId } = await subscriber(true);
    await askAppleForRefund(originalTransactionId);
    let offsetMs = 0;
    const { runDueOnce, lines } = job({ offsetMs: () => offsetMs });
    sandbox.failNextConsumptionCalls(2);

    await runDueOnce();
    expect(await reportRow(originalTransactionId)).toMatchObject([
      { outcome: null, attempts: 1, lastError: expect.stringMatching(/could not be reached/) },
    ]);
    await runDueOnce(); // not due yet: the first retry waits a minute
    offsetMs = MINUTE_MS;
    await runDueOnce();
    expect(await reportRow(originalTransactionId)).toMatchObject([{ attempts: 2 }]);
    offsetMs = 2 * MINUTE_MS; // a minute later: the second retry waits two
    await runDueOnce();
    expect(reportsAbout(originalTransactionId)).toEqual([]);
    offsetMs = 3 * MINUTE_MS;
    await runDueOnce();

    expect(reportsAbout(originalTransactionId)).toHaveLength(1);
    expect(await reportRow(originalTransactionId)).toMatchObject([
      { outcome: 'sent', attempts: 3 },
    ]);
    expect(
      lines.filter((line) => line.level === LOG_LEVEL.error && /not sent/.test(line.msg ?? '')),
    ).toHaveLength(2);
    expect(lines.filter((line) => /Apple accepted it/.test(line.msg ?? ''))).toHaveLength(1);
  });

  it('gives up 12 hours after Apple asked, and says so in the log', async () => {
    const { originalTransactionId } = await subscriber(true);
    await askAppleForRefund(originalTransactionId);
    const { runDueOnce, lines } = job({ offsetMs: () => 12 * HOUR_MS + MINUTE_MS });
    await runDueOnce();
    expect(reportsAbout(originalTransactionId)).toEqual([]);
    expect(await reportRow(originalTransactionId)).toMatchObject([{ outcome: 'given-up' }]);
    expect(
      lines.filter((line) => line.level === LOG_LEVEL.error && /given up/.test(line.msg ?? '')),
    ).toHaveLength(1);
  });

  it.each([
    // 11 hours into a week's pass is 6.5 % of it.
    { preference: { kind: 'none' } as const, expected: undefined },
    { preference: { kind: 'decline-past', usedPercent: 5 } as const, expected: 'DECLINE' },
    { preference: { kind: 'decline-past', usedPercent: 10 } as const, expected: undefined },
    { preference: { kind: 'grant-prorated' } as const, expected: 'GRANT_PRORATED' },
  ])('with APPLE_REFUND_PREFERENCE $preference.kind, prefers $expected', async (policy) => {
    const { originalTransactionId } = await subscriber(true);
    await askAppleForRefund(originalTransactionId);
    await job({ refundPreference: policy.preference, offsetMs: () => 11 * HOUR_MS }).runDueOnce();
    const [report] = reportsAbout(originalTransactionId);
    expect(report?.body.refundPreference).toBe(policy.expected);
    // Apple works out an auto-renewable subscription's consumption itself.
    expect(report?.body).not.toHaveProperty('consumptionPercentage');
  });
});

describe.each(testDatabaseKinds)('without an App Store Server API key on $name', (kind) => {
  let sandbox: AppStoreSandbox;
  let server: TestServer;
  const log = captureLog();
  beforeAll(async () => {
    sandbox = await startTestAppStoreSandbox();
    server = await startTestServer(kind, { env: appStoreEnv(sandbox), logger: log.logger });
  });
  afterAll(async () => {
    await server.close();
    await sandbox.close();
  });

  it('owes Apple no answer, and says at start that refund requests are not answered', async () => {
    const email = uniqueEmail('no-key');
    const { accessToken } = await registerAndLogin(server.app, email, 'correct horse');
    const { id } = await server.app.database.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    await server.app.inject({
      method: 'PUT',
      url: '/api/users/preferences',
      headers: { authorization: `Bearer ${accessToken}` },
      payload: { appleConsumptionConsent: true },
    });
    const response = await deliverNotification(
      server.app,
      signedNotification(sandbox, {
        type: 'CONSUMPTION_REQUEST',
        transaction: monthFrom(Date.now(), { appAccountToken: id }),
      }),
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(
      await server.app.database.db.selectFrom('appStoreConsumptionReports').selectAll().execute(),
    ).toEqual([]);
    expect(
      log.find(LOG_LEVEL.info, /^The App Store Server API is off, .*answers to refund requests/),
    ).toHaveLength(1);
  });
});
