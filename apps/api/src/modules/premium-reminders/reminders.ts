// A mail before premium ends (docs/mail.md, ADR 024). Every 15 minutes each process looks for
// members whose premium from web passes (or support grants stacked on them) ends within 72 hours,
// with no App Store subscription that renews and reminders on, and mails each one once per end:
// the reminder row, unique per member and end, is written in the transaction of the outbox row,
// under the member's row lock, so any number of processes and runs send one.
//
// A reminder that has not left when the end moves (a pass bought, a refund) is withdrawn from the
// outbox: at once by the ledger's change (`withdrawStaleReminders`, in its transaction), and by
// every run for one that was being sent at that moment and failed.
import type { Kysely, Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import { mailLocaleOf } from '../../mail/mail-locale';
import { premiumEndingEmail } from '../../mail/premium-reminder-templates';
import type { Mailer } from '../../mail/outbox';
import { withdrawUnsentMail } from '../../mail/withdraw-mail';
import { deriveKey } from '../../security/keys';
import { usersRepo } from '../users';
import * as repo from './repo';
import { signUnsubscribeToken } from './unsubscribe-token';

const REMIND_BEFORE_MS = repo.REMIND_BEFORE_SECONDS * 1000;
/**
 * The pause between two members in one run: at most four reminders a second from a process. A
 * reminder is 72 hours early, so a run need not be quick, and at a million members a run's
 * members come in bursts: the first run after a start (a deploy) found 233 due on the bench's
 * database, and, mailed back to back in 8 s, they slowed the requests meanwhile (the Stripe
 * webhook's throughput fell by a third, its p99 in those seconds 146 to 211 ms against 77 to 101
 * ms before and after: issue 30, docs/benchmarks/scale.md).
 */
const PAUSE_BETWEEN_MEMBERS_MS = 250;
const STALE_REASON = 'the premium end it told of moved';

export interface PremiumRemindersOptions {
  db: Kysely<Database>;
  mail: Mailer;
  publicUrl: string;
  supportEmail: string;
  /** Keys the unsubscribe links (deriveKey 'unsubscribe-link'). */
  tokenSecret: string;
  log: {
    info(details: object, message: string): void;
    error(details: object, message: string): void;
  };
  /** How often the job runs: every 15 minutes (and a minute after start). */
  intervalMs?: number;
  /** Waits between two members of a run (PAUSE_BETWEEN_MEMBERS_MS); tests watch it. */
  pause?: (ms: number) => Promise<void>;
}

/** A timer that never keeps the process alive by itself. */
function pauseFor(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * Withdraws the member's reminders still waiting in the outbox that are not of `endsAt`, his new
 * end: called by the ledger in the transaction that moves it.
 */
export async function withdrawStaleReminders(
  transaction: Transaction<Database>,
  userId: string,
  endsAt: Date | null,
): Promise<void> {
  const stale = await repo.listStaleReminderMails(transaction, { userId, endsAt });
  await withdrawUnsentMail(transaction, stale, STALE_REASON);
}

/**
 * Withdraws every reminder of the member still waiting in the outbox: called in the transaction
 * that turns his reminders off, from the one-click link or Account Settings.
 */
export async function withdrawWaitingReminders(
  transaction: Transaction<Database>,
  userId: string,
): Promise<void> {
  const waiting = await repo.listStaleReminderMails(transaction, { userId });
  await withdrawUnsentMail(transaction, waiting, 'reminders were turned off');
}

/** Mails one member if he is still due under his row lock; whether a mail was written. */
async function remind(
  options: PremiumRemindersOptions & { unsubscribeKey: Buffer },
  userId: string,
  now: Date,
): Promise<boolean> {
  const { db, mail, publicUrl, unsubscribeKey } = options;
  return db.transaction().execute(async (transaction) => {
    await usersRepo.lockUser(transaction, userId);
    const until = new Date(now.getTime() + REMIND_BEFORE_MS);
    const [due] = await repo.findDueReminders(transaction, { now, until, userId });
    if (!due?.endsAt) return false;
    const reminder = { userId, endsAt: due.endsAt };
    if (!(await repo.insertReminder(transaction, reminder))) return false;
    const token = signUnsubscribeToken(unsubscribeKey, userId, 'expiry-reminders');
    const query = `?token=${encodeURIComponent(token)}`;
    const outboxEmailId = await mail.enqueue(transaction, {
      to: due.email,
      userId,
      template: 'premium-expiry-reminder',
      content: premiumEndingEmail({
        endsAt: due.endsAt,
        purchaseUrl: `${publicUrl}/purchase`,
        oneClickUnsubscribeUrl: `${publicUrl}/api/users/unsubscribe${query}`,
        unsubscribePageUrl: `${publicUrl}/account/unsubscribe${query}`,
        supportEmail: options.supportEmail,
        locale: mailLocaleOf(due),
      }),
      // A reminder of an end already past would only confuse.
      uselessAfter: due.endsAt,
    });
    await repo.setReminderMail(transaction, { ...reminder, outboxEmailId });
    return true;
  });
}

export function createPremiumReminders(options: PremiumRemindersOptions) {
  const { db } = options;
  const unsubscribeKey = deriveKey(options.tokenSecret, 'unsubscribe-link');
  const intervalMs = options.intervalMs ?? 15 * 60 * 1000;
  const pause = options.pause ?? pauseFor;
  let timer: NodeJS.Timeout | undefined;
  // Set by stop(): a run under way mails no one more (its pauses could last minutes).
  let isStopped = false;

  /**
   * One run at `now` (the job's clock: tests and the development clock move it): withdraws the
   * reminders gone stale, then mails the members due. Answers how many were mailed.
   */
  async function runOnce(now: Date = new Date()): Promise<number> {
    const stale = await repo.listStaleReminderMails(db, {});
    await withdrawUnsentMail(db, stale, STALE_REASON);
    const due = await repo.findDueReminders(db, {
      now,
      until: new Date(now.getTime() + REMIND_BEFORE_MS),
    });
    let mailed = 0;
    for (const [index, member] of due.entries()) {
      if (index > 0) await pause(PAUSE_BETWEEN_MEMBERS_MS);
      if (isStopped) break;
      if (await remind({ ...options, unsubscribeKey }, member.id, now)) mailed += 1;
    }
    return mailed;
  }

  function schedule(delayMs: number): void {
    timer = setTimeout(() => {
      runOnce()
        .then((mailed) => {
          if (mailed > 0) options.log.info({ mailed }, 'premium reminders: mailed');
        })
        .catch((error: unknown) => {
          options.log.error({ err: error }, 'premium reminders: run failed; next run later');
        })
        .finally(() => {
          if (timer) schedule(intervalMs);
        });
    }, delayMs);
    // A pending run never keeps the process alive.
    timer.unref();
  }

  return {
    runOnce,
    unsubscribeKey,
    start(): void {
      isStopped = false;
      schedule(60_000);
    },
    stop(): void {
      isStopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

export type PremiumReminders = ReturnType<typeof createPremiumReminders>;
