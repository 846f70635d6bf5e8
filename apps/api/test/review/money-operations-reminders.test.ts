// Adversarial review of the reminders before premium ends (ADR 024): a member who turns them off
// in Account Settings while one waits in the outbox (its mail server away), and two members
// reminded in the same run, each of whom must get his own mail and his own link only. Each test
// fails if its attack works.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createPremiumReminders } from '../../src/modules/premium-reminders';
import { readUnsubscribeToken } from '../../src/modules/premium-reminders/unsubscribe-token';
import { deriveKey } from '../../src/security/keys';
import { getProfile } from '../support/accounts';
import { makeMember, MEMBER_PASSWORD } from '../support/desk-actions';
import { checkoutEvent, deliverStripeEvent, newPaymentIntentId } from '../support/stripe-events';
import {
  startTestServer,
  TEST_PUBLIC_URL,
  TEST_TOKEN_SECRET,
  type TestServer,
} from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const HOUR_MS = 60 * 60 * 1000;

function reminderJob(app: FastifyInstance) {
  return createPremiumReminders({
    db: app.database.db,
    mail: app.mail,
    publicUrl: TEST_PUBLIC_URL,
    supportEmail: 'support@kegel.test',
    tokenSecret: TEST_TOKEN_SECRET,
    log: app.log,
  });
}

/** A 1-week pass bought on the web; the member's premium end after it. */
async function buyPass(app: FastifyInstance, buyer: { email: string; accessToken: string }) {
  const paid = await deliverStripeEvent(
    app,
    checkoutEvent({ email: buyer.email, planId: '1-week', paymentIntentId: newPaymentIntentId() }),
  );
  expect(paid.statusCode, paid.body).toBe(200);
  const profile = (await getProfile(app, buyer.accessToken)).json<{
    subscriptionEndDate: string;
  }>();
  return new Date(profile.subscriptionEndDate);
}

describe.each(testDatabaseKinds)('review: premium reminders under attack on $name', (kind) => {
  let server: TestServer;
  let mailDown: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
    // Its mail cannot leave (nothing listens there): a reminder waits in the outbox, retried.
    mailDown = await startTestServer(kind, { env: { SMTP_URL: 'smtp://127.0.0.1:1' } });
  });
  afterAll(async () => {
    await server.close();
    await mailDown.close();
  });

  it('withdraws a reminder still waiting when the member turns reminders off in Account Settings', async () => {
    const { app } = mailDown;
    const buyer = await makeMember(app, 'settings-off-waiting');
    const endsAt = await buyPass(app, buyer);
    expect(await reminderJob(app).runOnce(new Date(endsAt.getTime() - 71 * HOUR_MS))).toBe(1);
    const turnedOff = await app.inject({
      method: 'PUT',
      url: '/api/users/preferences',
      headers: { authorization: `Bearer ${buyer.accessToken}` },
      payload: { expiryReminders: false },
    });
    expect(turnedOff.statusCode, turnedOff.body).toBe(200);
    // At once, as the one-click link does: the outbox retries the mail long before the
    // reminders' next run would notice.
    const rows = await app.database.db
      .selectFrom('outboxEmails')
      .select(['sentAt', 'failedAt', 'lastError'])
      .where('userId', '=', buyer.userId)
      .where('template', '=', 'premium-expiry-reminder')
      .execute();
    expect(rows).toEqual([
      {
        sentAt: null,
        failedAt: expect.any(Date),
        lastError: 'withdrawn: reminders were turned off',
      },
    ]);
  });

  it('drops a reminder still waiting when the member deletes his account', async () => {
    const { app } = mailDown;
    const buyer = await makeMember(app, 'deleted-waiting');
    const endsAt = await buyPass(app, buyer);
    expect(await reminderJob(app).runOnce(new Date(endsAt.getTime() - 71 * HOUR_MS))).toBe(1);
    const deleted = await app.inject({
      method: 'POST',
      url: '/api/users/delete',
      headers: { authorization: `Bearer ${buyer.accessToken}` },
      payload: { password: MEMBER_PASSWORD },
    });
    expect(deleted.statusCode, deleted.body).toBeLessThan(300);
    const waiting = await app.database.db
      .selectFrom('outboxEmails')
      .select(['id', 'template'])
      .where('recipient', '=', buyer.email)
      .where('sentAt', 'is', null)
      .where('failedAt', 'is', null)
      .execute();
    expect(waiting.map((row) => row.template)).toEqual(['account-deleted']);
    // Nor does a later run find him.
    expect(await reminderJob(app).runOnce(new Date(endsAt.getTime() - 70 * HOUR_MS))).toBe(0);
  });

  it("mails each of two members due in one run his own end and his own link, nobody else's", async () => {
    const first = await makeMember(server.app, 'reminded-first');
    const second = await makeMember(server.app, 'reminded-second');
    const firstEnd = await buyPass(server.app, first);
    await buyPass(server.app, second);
    expect(await reminderJob(server.app).runOnce(new Date(firstEnd.getTime() - 71 * HOUR_MS))).toBe(
      2,
    );
    const key = deriveKey(TEST_TOKEN_SECRET, 'unsubscribe-link');
    for (const [self, other] of [
      [first, second],
      [second, first],
    ] as const) {
      const mail = await server.inbox.waitFor(
        (email) => email.to.includes(self.email) && email.subject.includes('premium ends'),
      );
      expect(mail.to).toEqual([self.email]);
      expect(`${mail.text}${mail.html}${JSON.stringify(mail.headers)}`).not.toContain(other.email);
      expect(`${mail.text}${mail.html}${JSON.stringify(mail.headers)}`).not.toContain(other.userId);
      const link = /<(https:\/\/[^>]+)>/.exec(mail.headers['list-unsubscribe'] ?? '')?.[1] ?? '';
      const token = new URL(link).searchParams.get('token') ?? '';
      expect(readUnsubscribeToken(key, token)).toEqual({
        userId: self.userId,
        list: 'expiry-reminders',
      });
    }
  });
});
