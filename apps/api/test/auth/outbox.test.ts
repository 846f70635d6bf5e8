import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';

import { startSmtpInbox } from '@kegel/sandbox/smtp-inbox';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { login, post, register } from '../support/accounts';
import { captureLog, LOG_LEVEL } from '../support/log-capture';
import { buildTestApp, linkIn, TEST_STRIPE_WEBHOOK_SECRET, uniqueEmail } from '../support/test-app';
import { type TestDatabase, testDatabaseKinds } from '../support/test-databases';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Stripe's word that a guest paid: the server makes the account and mails its password. */
function deliverGuestPurchase(app: FastifyInstance, email: string) {
  const payload = JSON.stringify({
    id: `evt_${randomUUID().replaceAll('-', '')}`,
    object: 'event',
    type: 'checkout.session.completed',
    data: {
      object: {
        id: `cs_test_${randomUUID().replaceAll('-', '')}`,
        object: 'checkout.session',
        customer_details: { email },
        metadata: { planId: '1-week' },
        amount_total: 999,
        currency: 'usd',
        payment_status: 'paid',
      },
    },
  });
  const signature = new Stripe('sk_test_only_for_signing').webhooks.generateTestHeaderString({
    payload,
    secret: TEST_STRIPE_WEBHOOK_SECRET,
  });
  return app.inject({
    method: 'POST',
    url: '/api/payments/stripe/webhook',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    payload,
  });
}

describe.each(testDatabaseKinds)('mail outbox on $name', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await kind.create();
  });
  afterAll(() => database.drop());

  it('loses nothing while the mail server is down, and does not make the answer wait for it', async () => {
    const port = await freePort();
    const app = await buildTestApp(database, { env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
    try {
      const email = uniqueEmail('down');
      await register(app, email, 'correct horse');
      const response = await post(app, '/auth/reset-password', { email });
      expect(response.statusCode).toBe(200);

      // The server keeps trying; the mail is in the outbox, sealed, not sent.
      await new Promise((resolve) => setTimeout(resolve, 400));
      const pending = await app.database.db
        .selectFrom('outboxEmails')
        .select(['attempts', 'sentAt', 'lastError', 'encryptedPayload'])
        .where('recipient', '=', email)
        .executeTakeFirstOrThrow();
      expect(pending.sentAt).toBeNull();
      expect(pending.attempts).toBeGreaterThanOrEqual(1);
      expect(pending.lastError).toBeTruthy();
      expect(pending.encryptedPayload).not.toContain('recover');

      // The mail server comes back: the mail arrives, and its payload is erased.
      const inbox = await startSmtpInbox({ port });
      try {
        const message = await inbox.waitFor((received) => received.to.includes(email), 15_000);
        expect(linkIn(message).pathname).toBe('/account/recover/new');
        let sent = await app.database.db
          .selectFrom('outboxEmails')
          .select(['sentAt', 'encryptedPayload'])
          .where('recipient', '=', email)
          .executeTakeFirstOrThrow();
        for (let wait = 0; wait < 50 && !sent.sentAt; wait += 1) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          sent = await app.database.db
            .selectFrom('outboxEmails')
            .select(['sentAt', 'encryptedPayload'])
            .where('recipient', '=', email)
            .executeTakeFirstOrThrow();
        }
        expect(sent.sentAt).not.toBeNull();
        expect(sent.encryptedPayload).toBeNull();
        expect(inbox.messages().filter((received) => received.to.includes(email))).toHaveLength(1);
      } finally {
        await inbox.close();
      }
    } finally {
      await app.close();
    }
  });

  it('writes no mail when the change fails (same transaction)', async () => {
    const app = await buildTestApp(database);
    try {
      const response = await post(app, '/auth/reset-password/confirm', {
        email: uniqueEmail('nobody'),
        code: 'not-a-code',
        newPassword: 'new password',
      });
      expect(response.statusCode).toBe(400);
      const rows = await app.database.db
        .selectFrom('outboxEmails')
        .select('id')
        .where('template', '=', 'password-changed')
        .execute();
      expect(rows).toHaveLength(0);
    } finally {
      await app.close();
    }
  });

  /** The outbox row of the one mail of `template` to `email`. */
  function outboxRow(app: FastifyInstance, email: string, template: string) {
    return app.database.db
      .selectFrom('outboxEmails')
      .selectAll()
      .where('recipient', '=', email)
      .where('template', '=', template)
      .executeTakeFirstOrThrow();
  }

  it('gives a link mail up once its link has expired, and never sends it after', async () => {
    const port = await freePort();
    const app = await buildTestApp(database, { env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
    try {
      const email = uniqueEmail('expired-link');
      await register(app, email, 'correct horse');
      const before = Date.now();
      expect((await post(app, '/auth/reset-password', { email })).statusCode).toBe(200);

      // Useless with the link: the reset code lives 60 minutes.
      const queued = await outboxRow(app, email, 'password-reset');
      expect(queued.uselessAfter!.getTime()).toBeGreaterThanOrEqual(before + 60 * 60_000 - 5_000);
      expect(queued.uselessAfter!.getTime()).toBeLessThanOrEqual(Date.now() + 60 * 60_000 + 5_000);

      // The hour passes while the mail server is down (the test moves the link's end closer).
      await app.database.db
        .updateTable('outboxEmails')
        .set({ uselessAfter: sql<Date>`now() + interval '1 second'` })
        .where('id', '=', queued.id)
        .execute();
      await expect
        .poll(async () => (await outboxRow(app, email, 'password-reset')).failedAt, {
          timeout: 10_000,
        })
        .not.toBeNull();
      const given = await outboxRow(app, email, 'password-reset');
      // Well before the ten attempts of a mail without a link; its payload (the link) is erased.
      expect(given.attempts).toBeLessThan(10);
      expect(given.encryptedPayload).toBeNull();

      // The mail server is back: a new request's mail arrives, the expired one never does.
      const inbox = await startSmtpInbox({ port });
      try {
        await post(app, '/auth/reset-password', { email });
        await inbox.waitFor((message) => message.to.includes(email), 15_000);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(inbox.messages().filter((message) => message.to.includes(email))).toHaveLength(1);
      } finally {
        await inbox.close();
      }
    } finally {
      await app.close();
    }
  });

  it('keeps trying a link mail until shortly before its link dies, not one backoff step short', async () => {
    const port = await freePort();
    // Backoff steps of minutes, as in production: the next would land past the link's end.
    const app = await buildTestApp(database, {
      env: { SMTP_URL: `smtp://127.0.0.1:${port}` },
      mail: { pollIntervalMs: 50, retryBaseMs: 120_000 },
    });
    try {
      const email = uniqueEmail('late-server');
      await register(app, email, 'correct horse');
      await post(app, '/auth/reset-password', { email });
      // The first attempt over (its count is raised when it starts, its lease cleared when it
      // ends): changed any earlier, the row would be overwritten by the attempt's own backoff.
      await expect
        .poll(
          async () => {
            const row = await outboxRow(app, email, 'password-reset');
            return row.attempts >= 1 && row.lockedUntil === null;
          },
          { timeout: 10_000 },
        )
        .toBe(true);
      // 100 s of the link left; the next step would be 240 s away.
      const { id } = await outboxRow(app, email, 'password-reset');
      await app.database.db
        .updateTable('outboxEmails')
        .set({
          uselessAfter: sql<Date>`now() + interval '100 seconds'`,
          nextAttemptAt: sql<Date>`now()`,
        })
        .where('id', '=', id)
        .execute();
      await expect
        .poll(async () => (await outboxRow(app, email, 'password-reset')).attempts, {
          timeout: 10_000,
        })
        .toBeGreaterThanOrEqual(2);

      const row = await outboxRow(app, email, 'password-reset');
      expect(row.failedAt).toBeNull();
      expect(row.encryptedPayload).not.toBeNull();
      // One more try, a minute before the link's end.
      expect(row.nextAttemptAt.getTime()).toBeLessThanOrEqual(row.uselessAfter!.getTime() - 59_000);
    } finally {
      await app.close();
    }
  });

  it('does not send a mail whose link expired before its first attempt (this server was down)', async () => {
    const inbox = await startSmtpInbox();
    const app = await buildTestApp(database, { env: { SMTP_URL: inbox.url } });
    try {
      const email = uniqueEmail('late');
      const content = (subject: string) => ({ subject, text: subject, html: `<p>${subject}</p>` });
      await app.mail.enqueue(app.database.db, {
        to: email,
        userId: null,
        template: 'test-expired',
        content: content('Expired link'),
        uselessAfter: new Date(Date.now() - 1000),
      });
      await app.mail.enqueue(app.database.db, {
        to: email,
        userId: null,
        template: 'test-no-link',
        content: content('No link'),
      });
      // Claimed in the order written: once the second has arrived, the first was dealt with.
      await inbox.waitFor((message) => message.to.includes(email), 15_000);
      expect(
        inbox
          .messages()
          .filter((message) => message.to.includes(email))
          .map((m) => m.subject),
      ).toEqual(['No link']);
      const expired = await outboxRow(app, email, 'test-expired');
      expect(expired.sentAt).toBeNull();
      expect(expired.failedAt).not.toBeNull();
      expect(expired.encryptedPayload).toBeNull();
    } finally {
      await app.close();
      await inbox.close();
    }
  });

  it('gives the email-change mails the lives of their links, and mails without a link none', async () => {
    const app = await buildTestApp(database);
    try {
      const email = uniqueEmail('deadlines');
      const newEmail = uniqueEmail('deadlines-new');
      await register(app, email, 'correct horse');
      const { accessToken } = await login(app, email, 'correct horse');
      const before = Date.now();
      const changed = await post(
        app,
        '/auth/change-email',
        { newEmail, password: 'correct horse' },
        accessToken,
      );
      expect(changed.statusCode).toBe(200);
      const hours = async (to: string, template: string) =>
        ((await outboxRow(app, to, template)).uselessAfter!.getTime() - before) / 3_600_000;
      expect(await hours(newEmail, 'email-change-confirmation')).toBeCloseTo(24, 1);
      expect(await hours(email, 'email-change-notice')).toBeCloseTo(72, 1);

      await post(
        app,
        '/auth/change-password',
        { oldPassword: 'correct horse', newPassword: 'battery staple' },
        accessToken,
      );
      expect((await outboxRow(app, email, 'password-changed')).uselessAfter).toBeNull();
    } finally {
      await app.close();
    }
  });

  it("never drops a guest purchase's password mail: keeps trying, logs an error each time past the last attempt, and delivers it", async () => {
    const port = await freePort();
    const log = captureLog();
    const app = await buildTestApp(database, {
      env: { SMTP_URL: `smtp://127.0.0.1:${port}` },
      logger: log.logger,
      // Three attempts instead of ten, and an interval capped at 0.2 s instead of an hour.
      mail: { pollIntervalMs: 50, retryBaseMs: 100, maxAttempts: 3, maxRetryDelayMs: 200 },
    });
    try {
      const email = uniqueEmail('guest-buyer');
      expect((await deliverGuestPurchase(app, email)).statusCode).toBe(200);

      await expect
        .poll(async () => (await outboxRow(app, email, 'account-created-by-purchase')).attempts, {
          timeout: 15_000,
        })
        .toBeGreaterThanOrEqual(6);
      const pending = await outboxRow(app, email, 'account-created-by-purchase');
      expect(pending.failedAt).toBeNull();
      expect(pending.encryptedPayload).not.toBeNull();
      const errors = log
        .find(LOG_LEVEL.error, /outbox/)
        .filter((line) => line.template === 'account-created-by-purchase');
      expect(errors.length).toBeGreaterThanOrEqual(3);

      const inbox = await startSmtpInbox({ port });
      try {
        const mail = await inbox.waitFor((message) => message.to.includes(email), 15_000);
        expect(mail.text).toMatch(/Sign in with this password: \S+/);
      } finally {
        await inbox.close();
      }
    } finally {
      await app.close();
    }
  });

  it('hands no mail to an SMTP server that offers no TLS, unless SMTP_ALLOW_INSECURE=true', async () => {
    // The capture offers no STARTTLS, as a plain-text relay or a downgrading attacker would not.
    const inbox = await startSmtpInbox();
    const app = await buildTestApp(database, {
      env: { SMTP_URL: inbox.url, SMTP_ALLOW_INSECURE: 'false' },
    });
    try {
      const email = uniqueEmail('cleartext');
      await register(app, email, 'correct horse');
      expect((await post(app, '/auth/reset-password', { email })).statusCode).toBe(200);

      // Until the first attempt has ended, either way: `attempts` counts it from when it starts
      // (a busy machine took over 200 ms between the two).
      let pending = { sentAt: null as Date | null, lastError: null as string | null };
      for (let wait = 0; wait < 300 && !pending.sentAt && !pending.lastError; wait += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        pending = await app.database.db
          .selectFrom('outboxEmails')
          .select(['sentAt', 'lastError'])
          .where('recipient', '=', email)
          .executeTakeFirstOrThrow();
      }
      expect(inbox.messages().filter((received) => received.to.includes(email))).toEqual([]);
      expect(pending.sentAt).toBeNull();
      expect(pending.lastError).toMatch(/STARTTLS/i);
    } finally {
      await app.close();
      await inbox.close();
    }
  });
});
