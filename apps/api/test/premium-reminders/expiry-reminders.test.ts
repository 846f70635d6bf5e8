import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import type { CapturedEmail } from '@kegel/sandbox/smtp-inbox';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { formatUtcMoment } from '../../src/mail/templates';
import { createPremiumReminders } from '../../src/modules/premium-reminders';
import { signUnsubscribeToken } from '../../src/modules/premium-reminders/unsubscribe-token';
import { deriveKey } from '../../src/security/keys';
import { getProfile } from '../support/accounts';
import { makeMember } from '../support/desk-actions';
import {
  appStoreEnv,
  deliverNotification,
  monthFrom,
  signedNotification,
  startTestAppStoreSandbox,
} from '../support/app-store';
import { checkoutEvent, deliverStripeEvent, newPaymentIntentId } from '../support/stripe-events';
import {
  startTestServer,
  TEST_PUBLIC_URL,
  TEST_TOKEN_SECRET,
  type TestServer,
} from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const TEMPLATE = 'premium-expiry-reminder';

/** A reminder job of its own over the server's database and outbox, as every process runs one. */
function reminderJob(app: FastifyInstance, pause?: (ms: number) => Promise<void>) {
  return createPremiumReminders({
    db: app.database.db,
    mail: app.mail,
    publicUrl: TEST_PUBLIC_URL,
    supportEmail: 'support@kegel.test',
    tokenSecret: TEST_TOKEN_SECRET,
    log: app.log,
    pause,
  });
}

/** Buys a pass on the web (Stripe's webhook); the member's premium end after it. */
async function buyPass(
  app: FastifyInstance,
  buyer: { email: string; accessToken: string },
  planId = '1-week',
) {
  const paid = await deliverStripeEvent(
    app,
    checkoutEvent({ email: buyer.email, planId, paymentIntentId: newPaymentIntentId() }),
  );
  expect(paid.statusCode, paid.body).toBe(200);
  const profile = (await getProfile(app, buyer.accessToken)).json<{
    subscriptionEndDate: string;
  }>();
  return new Date(profile.subscriptionEndDate);
}

/** The reminder mails written for a member, oldest first. */
function reminderRows(app: FastifyInstance, userId: string) {
  return app.database.db
    .selectFrom('outboxEmails')
    .select(['id', 'sentAt', 'failedAt', 'lastError'])
    .where('userId', '=', userId)
    .where('template', '=', TEMPLATE)
    .orderBy('createdAt')
    .execute();
}

function readPreferences(app: FastifyInstance, accessToken: string) {
  return app
    .inject({
      method: 'GET',
      url: '/api/users/preferences',
      headers: { authorization: `Bearer ${accessToken}` },
    })
    .then((response) => response.json<{ expiryReminders: boolean }>());
}

/** The one-click link of a mail's List-Unsubscribe header. */
function unsubscribeLinkOf(email: CapturedEmail): URL {
  const match = /^<(https:\/\/[^>]+)>$/.exec(email.headers['list-unsubscribe'] ?? '');
  if (!match?.[1]) throw new Error(`no List-Unsubscribe in "${email.subject}"`);
  return new URL(match[1]);
}

/** The token the reminder's links carry, signed as the server signs it. */
function signedToken(userId: string): string {
  return signUnsubscribeToken(
    deriveKey(TEST_TOKEN_SECRET, 'unsubscribe-link'),
    userId,
    'expiry-reminders',
  );
}

function postOneClick(app: FastifyInstance, link: URL) {
  return app.inject({
    method: 'POST',
    url: `${link.pathname}${link.search}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'List-Unsubscribe=One-Click',
  });
}

/**
 * A mail 72 hours before premium from web passes ends: once per end whatever runs the job, never
 * for an end that moved, not to a member who turned reminders off or whose App Store subscription
 * renews; and the one-click unsubscribe of RFC 8058 it carries.
 */
describe.each(testDatabaseKinds)('premium expiry reminders on $name', (kind) => {
  let sandbox: AppStoreSandbox;
  let server: TestServer;
  let mailDown: TestServer;
  beforeAll(async () => {
    sandbox = await startTestAppStoreSandbox();
    server = await startTestServer(kind, { env: appStoreEnv(sandbox) });
    // Its mail cannot leave (nothing listens there): a reminder waits in the outbox.
    mailDown = await startTestServer(kind, { env: { SMTP_URL: 'smtp://127.0.0.1:1' } });
  });
  afterAll(async () => {
    await server.close();
    await mailDown.close();
    await sandbox.close();
  });

  it('mails once, 72 hours before a 1-week pass ends, however many jobs run', async () => {
    const buyer = await makeMember(server.app, 'reminded');
    const endsAt = await buyPass(server.app, buyer);
    const job = reminderJob(server.app);

    expect(await job.runOnce(new Date(endsAt.getTime() - 72 * HOUR_MS - 60_000))).toBe(0);
    expect(await reminderRows(server.app, buyer.userId)).toEqual([]);

    const now = new Date(endsAt.getTime() - 71 * HOUR_MS);
    expect(await job.runOnce(now)).toBe(1);
    const mail = await server.inbox.waitFor(
      (email) => email.to.includes(buyer.email) && email.subject.includes('premium ends'),
    );
    expect(mail.subject).toBe(`Your Kegel Coach premium ends on ${formatUtcMoment(endsAt)}`);
    expect(mail.text).toContain(formatUtcMoment(endsAt));
    expect(mail.text).toContain(`Extend Premium: ${TEST_PUBLIC_URL}/purchase`);
    expect(mail.html).toContain(`href="${TEST_PUBLIC_URL}/purchase"`);
    expect(mail.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(unsubscribeLinkOf(mail).origin).toBe(TEST_PUBLIC_URL);

    // Again, and two more processes at once: nothing more.
    const runs = await Promise.all([
      job.runOnce(now),
      reminderJob(server.app).runOnce(now),
      reminderJob(server.app).runOnce(new Date(now.getTime() + HOUR_MS)),
    ]);
    expect(runs).toEqual([0, 0, 0]);
    expect(await reminderRows(server.app, buyer.userId)).toHaveLength(1);
  });

  it('withdraws a reminder still waiting when the pass is extended, and none goes for the old end', async () => {
    const { app } = mailDown;
    const buyer = await makeMember(app, 'extended');
    const endsAt = await buyPass(app, buyer);
    const job = reminderJob(app);
    expect(await job.runOnce(new Date(endsAt.getTime() - 71 * HOUR_MS))).toBe(1);
    const [waiting] = await reminderRows(app, buyer.userId);
    expect(waiting?.sentAt).toBeNull();
    expect(waiting?.failedAt).toBeNull();

    const newEnd = await buyPass(app, buyer);
    expect(newEnd.getTime()).toBe(endsAt.getTime() + 7 * DAY_MS);
    expect(await reminderRows(app, buyer.userId)).toEqual([
      expect.objectContaining({
        sentAt: null,
        failedAt: expect.any(Date),
        lastError: 'withdrawn: the premium end it told of moved',
      }),
    ]);
    // The old end is past its turn; the new one gets its own, 72 hours before it.
    expect(await job.runOnce(new Date(endsAt.getTime() - 70 * HOUR_MS))).toBe(0);
    expect(await job.runOnce(new Date(newEnd.getTime() - 71 * HOUR_MS))).toBe(1);
    expect(await reminderRows(app, buyer.userId)).toHaveLength(2);
  });

  it('withdraws a reminder still waiting when the member unsubscribes', async () => {
    const { app } = mailDown;
    const buyer = await makeMember(app, 'unsubscribed-waiting');
    const endsAt = await buyPass(app, buyer);
    expect(await reminderJob(app).runOnce(new Date(endsAt.getTime() - 71 * HOUR_MS))).toBe(1);
    const link = new URL(
      `/api/users/unsubscribe?token=${encodeURIComponent(signedToken(buyer.userId))}`,
      TEST_PUBLIC_URL,
    );
    expect((await postOneClick(app, link)).statusCode).toBe(200);
    expect(await reminderRows(app, buyer.userId)).toEqual([
      expect.objectContaining({
        sentAt: null,
        failedAt: expect.any(Date),
        lastError: 'withdrawn: reminders were turned off',
      }),
    ]);
  });

  it('mails nobody for a pass bought less than 72 hours before its end: he was just told it', async () => {
    const buyer = await makeMember(server.app, 'day-pass');
    const endsAt = await buyPass(server.app, buyer, '1-day');
    expect(await reminderJob(server.app).runOnce(new Date(endsAt.getTime() - 23 * HOUR_MS))).toBe(
      0,
    );
    expect(await reminderRows(server.app, buyer.userId)).toEqual([]);
  });

  it('mails nobody who turned reminders off', async () => {
    const buyer = await makeMember(server.app, 'no-reminders');
    const off = await server.app.inject({
      method: 'PUT',
      url: '/api/users/preferences',
      headers: { authorization: `Bearer ${buyer.accessToken}` },
      payload: { expiryReminders: false },
    });
    expect(off.statusCode, off.body).toBe(200);
    const endsAt = await buyPass(server.app, buyer);
    expect(await reminderJob(server.app).runOnce(new Date(endsAt.getTime() - 71 * HOUR_MS))).toBe(
      0,
    );
    expect(await reminderRows(server.app, buyer.userId)).toEqual([]);
  });

  it('mails nobody whose App Store subscription renews', async () => {
    const buyer = await makeMember(server.app, 'renewing');
    // An App Store month that renews, its current period ending before the web pass does.
    const period = monthFrom(Date.now() - 29 * DAY_MS, { appAccountToken: buyer.userId });
    const subscribed = await deliverNotification(
      server.app,
      signedNotification(sandbox, {
        type: 'SUBSCRIBED',
        subtype: 'INITIAL_BUY',
        transaction: period,
        autoRenew: true,
      }),
    );
    expect(subscribed.statusCode, subscribed.body).toBe(200);
    const endsAt = await buyPass(server.app, buyer);
    expect(endsAt.getTime()).toBeGreaterThan(period.expiresDate);
    expect(await reminderJob(server.app).runOnce(new Date(endsAt.getTime() - 71 * HOUR_MS))).toBe(
      0,
    );
    expect(await reminderRows(server.app, buyer.userId)).toEqual([]);
  });

  it('turns reminders off with the one-click POST, without a session; a GET or a bad token changes nothing', async () => {
    const buyer = await makeMember(server.app, 'one-click');
    const endsAt = await buyPass(server.app, buyer);
    await reminderJob(server.app).runOnce(new Date(endsAt.getTime() - 71 * HOUR_MS));
    const mail = await server.inbox.waitFor((email) => email.to.includes(buyer.email));
    const link = unsubscribeLinkOf(mail);
    expect(link.pathname).toBe('/api/users/unsubscribe');

    // A person's click, or a link scanner's prefetch: the page that asks, nothing turned off.
    const opened = await server.app.inject({
      method: 'GET',
      url: `${link.pathname}${link.search}`,
    });
    expect(opened.statusCode).toBe(303);
    expect(opened.headers.location).toBe(`${TEST_PUBLIC_URL}/account/unsubscribe${link.search}`);
    expect(mail.text).toContain(`${TEST_PUBLIC_URL}/account/unsubscribe${link.search}`);

    const token = link.searchParams.get('token') ?? '';
    const other = await makeMember(server.app, 'other');
    const forged = [
      token.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A')),
      token.replace(buyer.userId, other.userId),
      'not-a-token',
    ];
    for (const bad of forged) {
      const refused = await postOneClick(
        server.app,
        new URL(`/api/users/unsubscribe?token=${encodeURIComponent(bad)}`, TEST_PUBLIC_URL),
      );
      expect(refused.statusCode, bad).toBe(400);
    }
    expect((await readPreferences(server.app, buyer.accessToken)).expiryReminders).toBe(true);
    expect((await readPreferences(server.app, other.accessToken)).expiryReminders).toBe(true);

    const unsubscribed = await postOneClick(server.app, link);
    expect(unsubscribed.statusCode, unsubscribed.body).toBe(200);
    expect((await readPreferences(server.app, buyer.accessToken)).expiryReminders).toBe(false);
    // Clicked twice (the mail client, then the page): the same answer.
    expect((await postOneClick(server.app, link)).statusCode).toBe(200);
  });
});

/**
 * A run mails its members a pause apart, so that a burst of them (the first run after a deploy,
 * at a million members) is spread out rather than slowing the requests at once; and a stopped job mails no one
 * more, whatever its run still had to do. The pauses are watched, not timed.
 */
describe.each(testDatabaseKinds)('the pace of a reminder run on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => {
    await server.close();
  });

  /** A job whose pauses are written down, and do whatever `during` says instead of waiting. */
  function watchedJob(during: () => void = () => {}) {
    const pauses: number[] = [];
    const job = reminderJob(server.app, async (ms) => {
      pauses.push(ms);
      during();
    });
    return { job, pauses };
  }

  it('pauses 250 ms between two members of a run, and not before the first', async () => {
    const buyers = [];
    for (const label of ['paced-1', 'paced-2', 'paced-3']) {
      buyers.push(await makeMember(server.app, label));
    }
    const ends = [];
    for (const buyer of buyers) ends.push(await buyPass(server.app, buyer));
    const { job, pauses } = watchedJob();

    const mailed = await job.runOnce(new Date(ends[0]!.getTime() - 71 * HOUR_MS));
    expect(mailed).toBe(3);
    expect(pauses).toEqual([250, 250]);
    for (const buyer of buyers) {
      expect(await reminderRows(server.app, buyer.userId)).toHaveLength(1);
    }
  });

  it('mails no one more once stopped, though its run had more members due', async () => {
    const buyers = [];
    for (const label of ['stopped-1', 'stopped-2']) {
      buyers.push(await makeMember(server.app, label));
    }
    const ends = [];
    for (const buyer of buyers) ends.push(await buyPass(server.app, buyer));
    // Stopped during its first pause, as the server closes.
    const { job, pauses } = watchedJob(() => job.stop());

    const mailed = await job.runOnce(new Date(ends[0]!.getTime() - 71 * HOUR_MS));
    expect(mailed).toBe(1);
    expect(pauses).toHaveLength(1);
    const rows = await Promise.all(buyers.map((buyer) => reminderRows(server.app, buyer.userId)));
    expect(rows.map((row) => row.length).sort()).toEqual([0, 1]);
  });
});
