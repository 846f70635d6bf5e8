import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { AppError } from '../../src/errors';
import { createJobLease } from '../../src/jobs';
import {
  createNotificationRecovery,
  NOTIFICATION_RECOVERY_JOB,
} from '../../src/modules/app-store/notification-recovery';
import { createAppStoreService } from '../../src/modules/app-store/service';
import { registerAndLogin } from '../support/accounts';
import { claimsOf } from '../support/app-store';
import { premiumEndOf } from '../support/desk-actions';
import { captureLog, LOG_LEVEL } from '../support/log-capture';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * No App Store notification is lost: notifications whose delivery the App Store sandbox dropped
 * are read back from its Get Notification History by the recovery job and applied through the
 * path a delivered one takes, once, in signed order, by one process at a time. Each test has a
 * server (and so an App Store sandbox and its history) of its own.
 */
describe.each(testDatabaseKinds)('App Store notification recovery on $name', (kind) => {
  let server: TestServer;
  let sandbox: AppStoreSandbox;
  const log = captureLog();
  beforeEach(async () => {
    server = await startTestServer(kind, { logger: log.logger });
    // Listening: the sandbox delivers what it does not drop to the server's own port.
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const running = server.app.appStoreSandbox;
    if (!running) throw new Error('expected the App Store sandbox');
    sandbox = running;
  });
  afterEach(() => server.close());

  /** A job instance on the server's database, as another process would run one. */
  function recovery(holder?: string) {
    const { db } = server.app.database;
    return createNotificationRecovery({
      db,
      serverApi: server.app.appStoreServerApi,
      receiveNotification: createAppStoreService({ db, verifier: server.app.appStore })
        .receiveNotification,
      log: server.app.log,
      ...(holder ? { holder } : {}),
    });
  }

  async function member(label: string) {
    const email = uniqueEmail(label);
    const { accessToken } = await registerAndLogin(server.app, email, 'correct horse');
    const { id } = await server.app.database.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    return { id, accessToken };
  }

  const uuidOf = (signedPayload: string) => String(claimsOf(signedPayload).notificationUUID);

  /** The notifications the server recorded, in the order it applied them. */
  async function appliedInOrder(): Promise<string[]> {
    const rows = await server.app.database.db
      .selectFrom('appStoreNotifications')
      .select(['notificationUuid', 'appliedAt'])
      .orderBy('receivedAt')
      .execute();
    return rows.filter((row) => row.appliedAt !== null).map((row) => row.notificationUuid);
  }

  /** `count` notifications about one subscription, none delivered. */
  async function dropNotifications(count: number, appAccountToken: string): Promise<string[]> {
    const { originalTransactionId } = await sandbox.subscribe({
      productId: 'premium.month',
      appAccountToken,
      deliver: false,
    });
    const dropped = [];
    for (let index = 1; index < count; index += 1)
      dropped.push(
        await sandbox.setAutoRenew(originalTransactionId, index % 2 === 0, { deliver: false }),
      );
    return dropped;
  }

  it('applies exactly the notifications whose delivery was dropped, in signed order, once', async () => {
    const [renewing, buying, bystander] = [
      await member('renewing'),
      await member('buying'),
      await member('bystander'),
    ];
    const first = await sandbox.subscribe({
      productId: 'premium.month',
      appAccountToken: renewing.id,
    });
    const monthEnd = Date.parse((await premiumEndOf(server.app, renewing)) ?? '');
    // Three deliveries lost: a renewal, a purchase by another member and his auto-renew off.
    const renewal = await sandbox.renew(first.originalTransactionId, { deliver: false });
    const week = await sandbox.subscribe({
      productId: 'premium.week',
      appAccountToken: buying.id,
      deliver: false,
    });
    const autoRenewOff = await sandbox.setAutoRenew(week.originalTransactionId, false, {
      deliver: false,
    });
    await sandbox.subscribe({ productId: 'premium.year', appAccountToken: bystander.id });
    const before = await appliedInOrder();
    expect(await premiumEndOf(server.app, buying)).toBeNull();

    const run = await recovery().runOnce();

    expect(run).toMatchObject({ ran: true, recovered: 3, refused: 0 });
    const after = await appliedInOrder();
    expect(after.slice(0, before.length)).toEqual(before);
    const recovered = after.slice(before.length);
    expect(recovered).toHaveLength(3);
    expect(recovered[0]).toBe(uuidOf(renewal));
    expect(recovered[2]).toBe(uuidOf(autoRenewOff));
    const types = await server.app.database.db
      .selectFrom('appStoreNotifications')
      .select('notificationType')
      .where('notificationUuid', 'in', recovered)
      .orderBy('receivedAt')
      .execute();
    expect(types.map((row) => row.notificationType)).toEqual([
      'DID_RENEW',
      'SUBSCRIBED',
      'DID_CHANGE_RENEWAL_STATUS',
    ]);
    // The renewal's month follows the first one; the week bought while offline is premium now.
    expect(Date.parse((await premiumEndOf(server.app, renewing)) ?? '')).toBe(
      monthEnd + 30 * DAY_MS,
    );
    const weekEnd = Date.parse((await premiumEndOf(server.app, buying)) ?? '');
    expect(weekEnd).toBeGreaterThan(Date.now() + 6 * DAY_MS);

    expect(await recovery().runOnce()).toMatchObject({ ran: true, recovered: 0 });
    expect(await appliedInOrder()).toEqual(after);
  });

  it('is run by one process at a time: two at once, one does the work', async () => {
    const { id } = await member('two-processes');
    const dropped = await dropNotifications(3, id);

    const runs = await Promise.all([
      recovery('process a').runOnce(),
      recovery('process b').runOnce(),
    ]);

    expect(runs.filter((run) => run.ran)).toHaveLength(1);
    expect(runs.map((run) => run.recovered).sort()).toEqual([0, 3]);
    expect(await appliedInOrder()).toEqual(expect.arrayContaining(dropped.map(uuidOf)));
  });

  it('waits while another process holds the lease, and takes it over once that lease ran out', async () => {
    const { id } = await member('lease');
    await dropNotifications(2, id);
    const { db } = server.app.database;
    const other = createJobLease(db, {
      jobName: NOTIFICATION_RECOVERY_JOB,
      holder: 'another process',
      durationMs: 60_000,
    });
    expect(await other.take()).toBe(true);

    expect(await recovery().runOnce()).toMatchObject({ ran: false, recovered: 0 });
    expect(await appliedInOrder()).toEqual([]);

    // A process that stopped mid-run: its lease ends now, and the next run is someone else's.
    const stopped = createJobLease(db, {
      jobName: NOTIFICATION_RECOVERY_JOB,
      holder: 'another process',
      durationMs: 0,
    });
    expect(await stopped.take()).toBe(true);
    expect(await recovery().runOnce()).toMatchObject({ ran: true, recovered: 2 });
  });

  it('reads every page of the history (20 a page, as Apple)', async () => {
    const { id, accessToken } = await member('pages');
    const dropped = await dropNotifications(45, id);

    expect(await recovery().runOnce()).toMatchObject({ ran: true, recovered: 45 });
    expect(await appliedInOrder()).toEqual(expect.arrayContaining(dropped.map(uuidOf)));
    expect(await premiumEndOf(server.app, { accessToken })).not.toBeNull();
  });

  it('resumes on the page after the last one applied when a run failed midway', async () => {
    const { id } = await member('resume');
    await dropNotifications(25, id);
    sandbox.failNotificationHistoryRequests(1, { after: 1 });

    await expect(recovery().runOnce()).rejects.toBeInstanceOf(AppError);
    expect(await appliedInOrder()).toHaveLength(20);

    // Read from the start again, the first page would come back as 20 already applied.
    expect(await recovery().runOnce()).toMatchObject({
      ran: true,
      recovered: 5,
      alreadyApplied: 0,
    });
    expect(await appliedInOrder()).toHaveLength(25);
    expect(await recovery().runOnce()).toMatchObject({ ran: true, recovered: 0 });
  });

  it('reads the window again from its first page when Apple no longer takes the page token', async () => {
    const { id } = await member('expired-token');
    await dropNotifications(25, id);
    sandbox.failNotificationHistoryRequests(1, { after: 1 });
    await expect(recovery().runOnce()).rejects.toBeInstanceOf(AppError);
    // As Apple answers a token past its time, or one made for another request body.
    await server.app.database.db
      .updateTable('appStoreHistoryCursors')
      .set({ paginationToken: 'a-token-apple-no-longer-takes' })
      .execute();

    expect(await recovery().runOnce()).toMatchObject({
      ran: true,
      recovered: 5,
      alreadyApplied: 20,
    });
    expect(log.find(LOG_LEVEL.warn, /history token refused/)).toHaveLength(1);
  });

  // The start line that says so is the App Store plugin's (order-lookup.test.ts).
  it('is off without an App Store Server API key', async () => {
    const { db } = server.app.database;
    const job = createNotificationRecovery({
      db,
      serverApi: null,
      receiveNotification: () => Promise.reject(new Error('not called')),
      log: server.app.log,
    });
    job.start();
    job.stop();
    expect(await job.runOnce()).toMatchObject({ ran: false });
  });
});
