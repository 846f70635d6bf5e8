// The mail outbox and where it delivers: the SMTP server of SMTP_URL, or (development only) a
// local inbox on loopback read at /dev/inbox. Services get one call, `app.mail.enqueue(tx, email)`.
import type { SmtpInbox } from '@kegel/sandbox/smtp-inbox';
import fp from 'fastify-plugin';

import type { Config } from '../config';
import { type Mailer, OutboxWorker } from '../mail/outbox';
import { deriveKey } from '../security/keys';

declare module 'fastify' {
  interface FastifyInstance {
    mail: Mailer;
  }
}

export interface MailPluginOptions {
  config: Pick<Config, 'mail' | 'tokenSecret' | 'publicUrl'>;
  /** Outbox timing; tests shorten it. */
  timing?: {
    pollIntervalMs?: number;
    retryBaseMs?: number;
    maxRetryDelayMs?: number;
    maxAttempts?: number;
  };
}

export const mailPlugin = fp<MailPluginOptions>(
  async function mailPlugin(app, { config, timing }) {
    // Without SMTP_URL (config refuses that in production) mail goes to a local inbox, through
    // the same SMTP transport as in production.
    let localInbox: SmtpInbox | undefined;
    if (!config.mail.smtpUrl) {
      // Loaded here only: production never carries an SMTP server and a mail parser in memory.
      const { startSmtpInbox } = await import('@kegel/sandbox/smtp-inbox');
      localInbox = await startSmtpInbox();
      app.log.info(`no SMTP_URL: mail goes to the local inbox, ${config.publicUrl}/dev/inbox`);
    }
    const outbox = new OutboxWorker(
      app.database.db,
      {
        smtpUrl: config.mail.smtpUrl ?? localInbox?.url ?? '',
        // The local inbox is this process's own, on loopback: nothing travels the network.
        requireTls: config.mail.smtpUrl ? config.mail.requireTls : false,
        from: config.mail.from,
        encryptionKey: deriveKey(config.tokenSecret, 'outbox-encryption'),
        pollIntervalMs: timing?.pollIntervalMs ?? 2_000,
        retryBaseMs: timing?.retryBaseMs ?? 30_000,
        maxRetryDelayMs: timing?.maxRetryDelayMs ?? 60 * 60 * 1000,
        maxAttempts: timing?.maxAttempts ?? 10,
      },
      app.log,
    );
    app.decorate('mail', { enqueue: (transaction, email) => outbox.enqueue(transaction, email) });
    app.metrics.readOutboxWith(() => outbox.backlog());
    if (localInbox) {
      const { devInboxRoutes } = await import('../mail/dev-inbox-routes');
      await app.register(devInboxRoutes, { inbox: localInbox });
    }

    // Mail held back for a later retry is looked at again once the development clock moves.
    app.devClock?.onMoved(() => outbox.wake());
    app.addHook('onReady', async () => outbox.start());
    app.addHook('onClose', async () => {
      await outbox.stop();
      await localInbox?.close();
    });
  },
  { name: 'mail', dependencies: ['database', 'metrics', 'dev-clock'] },
);
