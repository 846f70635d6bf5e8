import { createServer } from 'node:net';

import { startSmtpInbox } from '@kegel/sandbox/smtp-inbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { post, register } from '../support/accounts';
import { buildTestApp, linkIn, uniqueEmail } from '../support/test-app';
import { type TestDatabase, testDatabaseKinds } from '../support/test-databases';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
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

      let pending = { attempts: 0, sentAt: null as Date | null, lastError: null as string | null };
      for (let wait = 0; wait < 60 && pending.attempts === 0; wait += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        pending = await app.database.db
          .selectFrom('outboxEmails')
          .select(['attempts', 'sentAt', 'lastError'])
          .where('recipient', '=', email)
          .executeTakeFirstOrThrow();
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(inbox.messages().filter((received) => received.to.includes(email))).toEqual([]);
      pending = await app.database.db
        .selectFrom('outboxEmails')
        .select(['attempts', 'sentAt', 'lastError'])
        .where('recipient', '=', email)
        .executeTakeFirstOrThrow();
      expect(pending.sentAt).toBeNull();
      expect(pending.lastError).toMatch(/STARTTLS/i);
    } finally {
      await app.close();
      await inbox.close();
    }
  });
});
