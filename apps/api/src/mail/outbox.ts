// The mail outbox. A service writes the email in the same transaction as the change it tells
// about (`Mailer.enqueue`), so a committed change always has its mail and a rolled-back one never
// does. The worker sends after the commit, with retries and backoff, so a mail server that is
// down neither loses mail nor slows the HTTP answer. Rows are claimed with SKIP LOCKED, so several
// server processes can share one outbox without sending twice.
import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type Transporter } from 'nodemailer';

import type { Database } from '../db/schema';
import { seal, unseal } from '../security/keys';
import type { RenderedEmail } from './templates';

export interface OutboxSettings {
  smtpUrl: string;
  from: string;
  /** Opens the sealed payloads (see security/keys.ts). */
  encryptionKey: Buffer;
  pollIntervalMs: number;
  /** First retry after this long, doubling each time, at most one hour. */
  retryBaseMs: number;
  maxAttempts: number;
}

/** What services write mail with: one call, inside the transaction of the change it tells about. */
export interface Mailer {
  enqueue(
    transaction: Transaction<Database> | Kysely<Database>,
    email: { to: string; template: string; content: RenderedEmail },
  ): Promise<void>;
}

/** smtp://user:pass@host:587 (STARTTLS when offered) or smtps://user:pass@host:465 (TLS). */
function smtpOptionsFromUrl(smtpUrl: string) {
  const url = new URL(smtpUrl);
  const isTls = url.protocol === 'smtps:';
  return {
    host: url.hostname,
    port: Number(url.port) || (isTls ? 465 : 587),
    secure: isTls,
    auth: url.username
      ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
      : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  };
}

const CLAIM_BATCH = 10;
const CLAIM_LEASE_SECONDS = 120;
const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;

/**
 * After an enqueue the worker looks again every 50 ms for this long: the caller's transaction
 * commits a moment later, and the mail should leave then rather than at the next poll.
 */
const EXPECT_MAIL_FOR_MS = 2_000;
const EXPECT_MAIL_POLL_MS = 50;

export class OutboxWorker implements Mailer {
  private readonly transport: Transporter;
  private expectMailUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private wakeAgain = false;
  private stopped = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly settings: OutboxSettings,
    private readonly log: FastifyBaseLogger,
  ) {
    this.transport = nodemailer.createTransport(smtpOptionsFromUrl(settings.smtpUrl));
  }

  start(): void {
    this.schedule(0);
  }

  async enqueue(
    transaction: Transaction<Database> | Kysely<Database>,
    email: { to: string; template: string; content: RenderedEmail },
  ): Promise<void> {
    await transaction
      .insertInto('outboxEmails')
      .values({
        recipient: email.to,
        template: email.template,
        encryptedPayload: seal(this.settings.encryptionKey, JSON.stringify(email.content)),
      })
      .execute();
    this.expectMailUntil = Date.now() + EXPECT_MAIL_FOR_MS;
    this.wake();
  }

  /** The mail not yet sent nor given up, by every process: how far behind delivery is. */
  async backlog(): Promise<{ count: number; oldestAgeSeconds: number }> {
    const row = await this.db
      .selectFrom('outboxEmails')
      .select([
        sql<string>`count(*)`.as('count'),
        sql<string | null>`extract(epoch from now() - min(created_at))`.as('oldestAgeSeconds'),
      ])
      .where('sentAt', 'is', null)
      .where('failedAt', 'is', null)
      .executeTakeFirstOrThrow();
    return {
      count: Number(row.count),
      oldestAgeSeconds: Math.max(0, Number(row.oldestAgeSeconds ?? 0)),
    };
  }

  /** Sends what is due now, without waiting for the next poll. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wakeAgain = true;
      return;
    }
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    this.transport.close();
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.sendDue()
        .catch((error: unknown) => this.log.error({ err: error }, 'outbox: sending failed'))
        .finally(() => {
          this.running = undefined;
          if (this.stopped) return;
          const again = this.wakeAgain;
          this.wakeAgain = false;
          const isExpectingMail = Date.now() < this.expectMailUntil;
          this.schedule(
            again
              ? 0
              : isExpectingMail
                ? Math.min(EXPECT_MAIL_POLL_MS, this.settings.pollIntervalMs)
                : this.settings.pollIntervalMs,
          );
        });
    }, delayMs);
    this.timer.unref();
  }

  /** Claims and sends due mail until none is left. */
  private async sendDue(): Promise<void> {
    for (;;) {
      const batch = await this.claimDue();
      if (batch.length === 0) return;
      await Promise.all(batch.map((row) => this.sendOne(row)));
      if (this.stopped) return;
    }
  }

  private async claimDue() {
    return this.db
      .updateTable('outboxEmails')
      .set({
        lockedUntil: sql<Date>`now() + make_interval(secs => ${CLAIM_LEASE_SECONDS})`,
        attempts: sql<number>`attempts + 1`,
      })
      .where(
        'id',
        'in',
        this.db
          .selectFrom('outboxEmails')
          .select('id')
          .where('sentAt', 'is', null)
          .where('failedAt', 'is', null)
          .where('nextAttemptAt', '<=', sql<Date>`now()`)
          .where((eb) =>
            eb.or([eb('lockedUntil', 'is', null), eb('lockedUntil', '<', sql<Date>`now()`)]),
          )
          .orderBy('createdAt')
          .limit(CLAIM_BATCH)
          .forUpdate()
          .skipLocked(),
      )
      .returning(['id', 'recipient', 'template', 'encryptedPayload', 'attempts'])
      .execute();
  }

  private async sendOne(row: {
    id: string;
    recipient: string;
    template: string;
    encryptedPayload: string | null;
    attempts: number;
  }): Promise<void> {
    try {
      if (!row.encryptedPayload) throw new Error('payload missing');
      const content = JSON.parse(
        unseal(this.settings.encryptionKey, row.encryptedPayload),
      ) as RenderedEmail;
      await this.transport.sendMail({
        from: this.settings.from,
        to: row.recipient,
        subject: content.subject,
        text: content.text,
        html: content.html,
      });
      // Sent: the payload (which may hold a one-time link) is erased.
      await this.db
        .updateTable('outboxEmails')
        .set({
          sentAt: sql<Date>`now()`,
          encryptedPayload: null,
          lockedUntil: null,
          lastError: null,
        })
        .where('id', '=', row.id)
        .execute();
      this.log.info({ outboxId: row.id, template: row.template }, 'outbox: sent');
    } catch (error) {
      const message = (error as Error).message.slice(0, 500);
      const isFinal = row.attempts >= this.settings.maxAttempts;
      const delayMs = Math.min(
        this.settings.retryBaseMs * 2 ** (row.attempts - 1),
        MAX_RETRY_DELAY_MS,
      );
      await this.db
        .updateTable('outboxEmails')
        .set({
          lockedUntil: null,
          lastError: message,
          nextAttemptAt: sql<Date>`now() + make_interval(secs => ${delayMs / 1000})`,
          ...(isFinal ? { failedAt: sql<Date>`now()`, encryptedPayload: null } : {}),
        })
        .where('id', '=', row.id)
        .execute();
      this.log.warn(
        { outboxId: row.id, template: row.template, attempts: row.attempts, err: message, isFinal },
        'outbox: sending failed, will retry',
      );
    }
  }
}
