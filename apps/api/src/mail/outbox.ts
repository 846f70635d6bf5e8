// The mail outbox. A service writes the email in the same transaction as the change it tells
// about (`Mailer.enqueue`), so a committed change always has its mail and a rolled-back one never
// does. The worker sends after the commit, with retries and backoff, so a mail server that is
// down neither loses mail nor slows the HTTP answer. Rows are claimed with SKIP LOCKED, so several
// server processes can share one outbox without sending twice.
//
// A mail is tried as long as it is worth it: one carrying a link stops when the link expires
// (`uselessAfter`), most stop after `maxAttempts`, and the one that must not be lost
// (`neverGiveUp`: a guest purchase's generated password) goes on at the longest interval, with an
// error in the log at each failure past the last attempt so that an operator sees it.
import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Transporter } from 'nodemailer';

import type { Database } from '../db/schema';
import { seal, unseal } from '../security/keys';
import type { RenderedEmail } from './templates';

export interface OutboxSettings {
  smtpUrl: string;
  /** Send only over TLS: smtps://, or smtp:// whose server must offer STARTTLS. */
  requireTls: boolean;
  from: string;
  /** Opens the sealed payloads (see security/keys.ts). */
  encryptionKey: Buffer;
  pollIntervalMs: number;
  /** First retry after this long, doubling each time, at most `maxRetryDelayMs`. */
  retryBaseMs: number;
  /** The longest wait between two attempts: an hour. */
  maxRetryDelayMs: number;
  /** Given up after this many, unless `neverGiveUp`. */
  maxAttempts: number;
}

export interface OutgoingEmail {
  to: string;
  /**
   * The account the mail is about, whatever address it goes to: deleting the account deletes it
   * (migrations/0013). Only a mail about an account already gone, its deletion's, has none.
   */
  userId: string | null;
  template: string;
  content: RenderedEmail;
  /** When its link expires: the mail is not sent after then, and not retried past it. */
  uselessAfter?: Date;
  /** Its loss cannot be made good (the only copy of a password): retried for as long as it takes. */
  neverGiveUp?: boolean;
}

/** Writes mail in the transaction of the change it tells of; answers its id (withdraw-mail.ts). */
export interface Mailer {
  enqueue(
    transaction: Transaction<Database> | Kysely<Database>,
    email: OutgoingEmail,
  ): Promise<string>;
}

/**
 * smtps://user:pass@host:465 (TLS from the start) or smtp://user:pass@host:587 (STARTTLS: required
 * with `requireTls`, else used when offered). Without it a relay, or anyone on the way who strips
 * the STARTTLS offer, would read the SMTP password and every reset link in clear.
 */
function smtpOptionsFromUrl(smtpUrl: string, requireTls: boolean) {
  const url = new URL(smtpUrl);
  const isTls = url.protocol === 'smtps:';
  return {
    host: url.hostname,
    port: Number(url.port) || (isTls ? 465 : 587),
    secure: isTls,
    requireTLS: requireTls && !isTls,
    auth: url.username
      ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
      : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  };
}

async function insertEmail(
  transaction: Transaction<Database> | Kysely<Database>,
  encryptionKey: Buffer,
  email: OutgoingEmail,
): Promise<string> {
  const { id } = await transaction
    .insertInto('outboxEmails')
    .values({
      recipient: email.to,
      userId: email.userId,
      template: email.template,
      encryptedPayload: seal(encryptionKey, JSON.stringify(email.content)),
      uselessAfter: email.uselessAfter ?? null,
      neverGiveUp: email.neverGiveUp ?? false,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/**
 * Writes mail into the outbox without sending it, for a one-off command (a payments replay):
 * a running server's worker sends it, or the next one to start.
 */
export function outboxWriter(encryptionKey: Buffer): Mailer {
  return { enqueue: (transaction, email) => insertEmail(transaction, encryptionKey, email) };
}

const CLAIM_BATCH = 10;
const CLAIM_LEASE_SECONDS = 120;

/**
 * After an enqueue the worker looks again every 50 ms for this long: the caller's transaction
 * commits a moment later, and the mail should leave then rather than at the next poll.
 */
const EXPECT_MAIL_FOR_MS = 2_000;
const EXPECT_MAIL_POLL_MS = 50;

export class OutboxWorker implements Mailer {
  private readonly smtpOptions: ReturnType<typeof smtpOptionsFromUrl>;
  /**
   * Made with the first mail to send: nodemailer (some 2 MB of heap) is loaded then, not at
   * start, since a server may idle for long without mail to send.
   */
  private transport: Promise<Transporter> | undefined;
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
    // Read at start all the same: a malformed SMTP_URL fails the start, not the first mail.
    this.smtpOptions = smtpOptionsFromUrl(settings.smtpUrl, settings.requireTls);
  }

  private transportMade(): Promise<Transporter> {
    this.transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport(this.smtpOptions),
    );
    return this.transport;
  }

  start(): void {
    this.schedule(0);
  }

  async enqueue(
    transaction: Transaction<Database> | Kysely<Database>,
    email: OutgoingEmail,
  ): Promise<string> {
    const id = await insertEmail(transaction, this.settings.encryptionKey, email);
    this.expectMailUntil = Date.now() + EXPECT_MAIL_FOR_MS;
    this.wake();
    return id;
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
    // A transport that failed to be made has nothing to close.
    (await this.transport?.catch(() => undefined))?.close();
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
      .returning([
        'id',
        'recipient',
        'template',
        'encryptedPayload',
        'attempts',
        'neverGiveUp',
        // By the database's clock, as every other time of the outbox.
        sql<boolean>`coalesce(useless_after <= now(), false)`.as('isUseless'),
      ])
      .execute();
  }

  private async sendOne(row: {
    id: string;
    recipient: string;
    template: string;
    encryptedPayload: string | null;
    attempts: number;
    neverGiveUp: boolean;
    isUseless: boolean;
  }): Promise<void> {
    if (row.isUseless) {
      // Its link expired before it could go (the mail server was down, or this server): a dead
      // link would only confuse. The person asks for a new one.
      await this.giveUp(row.id, 'its link expired before it could be sent');
      this.log.warn(
        { outboxId: row.id, template: row.template, attempts: row.attempts - 1 },
        'outbox: link expired before the mail could be sent; given up',
      );
      return;
    }
    try {
      if (!row.encryptedPayload) throw new Error('payload missing');
      const content = JSON.parse(
        unseal(this.settings.encryptionKey, row.encryptedPayload),
      ) as RenderedEmail;
      const transport = await this.transportMade();
      await transport.sendMail({
        from: this.settings.from,
        to: row.recipient,
        subject: content.subject,
        text: content.text,
        html: content.html,
        ...(content.headers ? { headers: content.headers } : {}),
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
      await this.scheduleRetry(row, (error as Error).message.slice(0, 500));
    }
  }

  /**
   * After a failed attempt: the next one, later each time, or none. A link mail is tried until a
   * minute before its link dies, then given up; one out of attempts too, unless it must never be
   * given up.
   */
  private async scheduleRetry(
    row: { id: string; template: string; attempts: number; neverGiveUp: boolean },
    message: string,
  ): Promise<void> {
    const { retryBaseMs, maxRetryDelayMs, maxAttempts } = this.settings;
    const isOutOfAttempts = row.attempts >= maxAttempts;
    const delayMs = isOutOfAttempts
      ? maxRetryDelayMs
      : Math.min(retryBaseMs * 2 ** (row.attempts - 1), maxRetryDelayMs);
    // A link mail's last attempt comes a minute before its link dies, not a backoff step past it:
    // a mail server back at minute 35 still delivers a 60-minute reset link.
    const lastUsefulAttemptAt = sql<Date>`useless_after - interval '1 minute'`;
    const nextAttemptAt = sql<Date>`least(now() + make_interval(secs => ${delayMs / 1000}), coalesce(${lastUsefulAttemptAt}, 'infinity'))`;
    const givesUp = sql<boolean>`(${sql.lit(isOutOfAttempts && !row.neverGiveUp)} or coalesce(${lastUsefulAttemptAt} <= now(), false))`;
    const updated = await this.db
      .updateTable('outboxEmails')
      .set({
        lockedUntil: null,
        lastError: message,
        nextAttemptAt,
        failedAt: sql<Date | null>`case when ${givesUp} then now() end`,
        encryptedPayload: sql<
          string | null
        >`case when ${givesUp} then null else encrypted_payload end`,
      })
      .where('id', '=', row.id)
      // Withdrawn during this attempt (withdraw-mail.ts): it stays so.
      .where('failedAt', 'is', null)
      .returning('failedAt')
      .executeTakeFirst();
    if (!updated) return;
    const details = {
      outboxId: row.id,
      template: row.template,
      attempts: row.attempts,
      err: message,
    };
    if (updated?.failedAt) {
      this.log.warn(
        {
          ...details,
          reason: isOutOfAttempts ? 'out of attempts' : 'its link expires before the next attempt',
        },
        'outbox: sending failed; given up',
      );
    } else if (isOutOfAttempts) {
      // Only a mail that is never given up gets here, retried at the longest interval (an hour):
      // one error an hour for each such mail, until the mail server takes it.
      this.log.error(details, 'outbox: a mail that must not be lost is still not sent; retrying');
    } else {
      this.log.warn(details, 'outbox: sending failed, will retry');
    }
  }

  /** No more attempts: marked failed, and its payload (which may hold a link) erased. */
  private async giveUp(id: string, reason: string): Promise<void> {
    await this.db
      .updateTable('outboxEmails')
      .set({
        lockedUntil: null,
        lastError: reason,
        failedAt: sql<Date>`now()`,
        encryptedPayload: null,
      })
      .where('id', '=', id)
      .execute();
  }
}

/**
 * Forgets the mail to these addresses that names no account, sent or waiting (its record is
 * personal data too): what was written before mail named its account (migrations/0013). The
 * member's own mail, to whichever address, goes with his row; another account's stays.
 */
export async function deleteUnownedMailTo(
  db: Kysely<Database> | Transaction<Database>,
  addresses: readonly string[],
) {
  if (addresses.length === 0) return;
  await db
    .deleteFrom('outboxEmails')
    .where('userId', 'is', null)
    .where(
      sql<string>`lower(recipient)`,
      'in',
      addresses.map((address) => address.toLowerCase()),
    )
    .execute();
}
