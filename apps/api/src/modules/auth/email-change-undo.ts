// "This was not me": the link an email change mails to the address it leaves, and the window in
// which that address can take the account back (docs/decisions/016-email-change-undo-window.md).
// The server cannot tell the owner from someone who knows his password, so the rules are about
// order and time: the oldest open link wins, a link voids only those issued after it, a window
// lasts 72 hours, and only a device signed in a week before the change may close it early.
import { authMessages, type EmailChangeUndoWindow, emailChangeUndoMessages } from '@kegel/contract';
import type { Kysely, Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import { AppError } from '../../errors';
import type { Mailer } from '../../mail/outbox';
import { mailLocaleOf } from '../../mail/mail-locale';
import {
  emailChangeAgainNoticeEmail,
  emailChangeNoticeEmail,
  emailChangeUndoneEmail,
} from '../../mail/templates';
import { hashSecret, randomSecret } from '../../security/keys';
import { passkeysRepo } from '../passkeys';
import { socialRepo } from '../social';
import { usersRepo } from '../users';
import * as codeRepo from './code-repo';
import * as sessionRepo from './session-repo';
import * as undoRepo from './undo-repo';

/**
 * How long the address an email change leaves can take the account back: long enough for an
 * owner to notice a takeover, short enough that an old mailbox (a job ended, an address
 * recycled) is not a lasting key to the account. Apple and Google keep similar windows.
 */
export const EMAIL_CHANGE_UNDO_VALID_SECONDS = 72 * 60 * 60;

/** A session signed in this long before a change may close its undo window early. */
export const CLOSE_UNDO_MIN_SESSION_AGE_DAYS = 7;

const messages = {
  linkInvalid: authMessages.undoLinkInvalid,
  undone:
    'The email change was cancelled and every device was signed out. Choose a new password to sign in again.',
  addressTaken: (supportEmail: string) =>
    `Every device was signed out, but your previous address is now used by another account, so we could not give it back. Write to ${supportEmail} and we will sort it out.`,
} as const;

export interface EmailChangeUndoDependencies {
  db: Kysely<Database>;
  mail: Mailer;
  publicUrl: string;
  supportEmail: string;
  /** Ends every session and voids the reset and email-change codes (the auth service's). */
  secureAccount(
    transaction: Transaction<Database>,
    userId: string,
    options: { reason: string },
  ): Promise<{ email: string }>;
  /** Told (after commit) when the account's address changed back. */
  onEmailChanged?: (userId: string) => void;
}

export type EmailChangeUndo = ReturnType<typeof createEmailChangeUndo>;

export function createEmailChangeUndo(deps: EmailChangeUndoDependencies) {
  return {
    issueUndoLinks: (transaction: Transaction<Database>, change: EmailChangeAsked) =>
      issueUndoLinks(deps, transaction, change),
    undo: (input: { code: string }) => undo(deps, input),
    listWindows: (caller: { userId: string; sessionId: string }) => listWindows(deps.db, caller),
    closeWindows: (caller: { userId: string; sessionId: string }) => closeWindows(deps.db, caller),
    hasOpenWindow,
  };
}

function undoLink(deps: EmailChangeUndoDependencies, code: string): string {
  return `${deps.publicUrl}/account/cancel-email-change?${new URLSearchParams({ code }).toString()}`;
}

/** An email change just asked for: the account as its password was checked, and where to. */
interface EmailChangeAsked {
  user: { id: string; email: string; credentialVersion: number; locale: string | null };
  newEmail: string;
}

/**
 * Inside the transaction of an email change request: the notice with its undo link to the
 * address the account has now, and, to every address an earlier change left whose link is
 * still open, a notice of this one with a copy of that link (ranked and expiring as it), so
 * whoever made the first change cannot make the next one unseen.
 */
async function issueUndoLinks(
  deps: EmailChangeUndoDependencies,
  transaction: Transaction<Database>,
  change: EmailChangeAsked,
): Promise<void> {
  const { user, newEmail } = change;
  const protectedAddresses = await undoRepo.listUndoWindows(transaction, user.id);
  const code = randomSecret();
  const { expiresAt } = await codeRepo.insertCode(transaction, {
    userId: user.id,
    purpose: 'email_change_cancel',
    email: user.email,
    requestedEmail: newEmail,
    codeHash: hashSecret(code),
    validSeconds: EMAIL_CHANGE_UNDO_VALID_SECONDS,
    credentialVersion: user.credentialVersion,
  });
  await deps.mail.enqueue(transaction, {
    to: user.email,
    userId: user.id,
    template: 'email-change-notice',
    content: emailChangeNoticeEmail({
      newEmail,
      cancelLink: undoLink(deps, code),
      undoableUntil: expiresAt,
      supportEmail: deps.supportEmail,
      locale: mailLocaleOf(user),
    }),
    uselessAfter: expiresAt,
  });
  for (const window of protectedAddresses) {
    const copy = randomSecret();
    await undoRepo.reissueUndoCode(transaction, {
      userId: user.id,
      email: window.email,
      codeHash: hashSecret(copy),
      requestedEmail: newEmail,
    });
    await deps.mail.enqueue(transaction, {
      to: window.email,
      userId: user.id,
      template: 'email-change-again-notice',
      content: emailChangeAgainNoticeEmail({
        currentEmail: user.email,
        newEmail,
        cancelLink: undoLink(deps, copy),
        undoableUntil: window.expiresAt,
        supportEmail: deps.supportEmail,
        // The account's language: the address it left was his own.
        locale: mailLocaleOf(user),
      }),
      uselessAfter: window.expiresAt,
    });
  }
}

/**
 * The link used: the account gets back the address it was mailed to (a pending change dies
 * with it; confirmed ones are undone), every session ends, the Google or Apple identities
 * linked since the link was issued are unlinked, and the links issued after it die (an
 * attacker's own, from a change he asked for later). Links issued before it stay: a later
 * link never outranks an earlier one. Whoever asked knew the password, so it is cleared: the
 * owner sets a new one through a reset link, which now goes to his own address.
 */
async function undo(deps: EmailChangeUndoDependencies, input: { code: string }): Promise<string> {
  const { db } = deps;
  const code = {
    purpose: 'email_change_cancel',
    codeHash: hashSecret(input.code),
    requireCurrentCredentials: false,
  } as const;
  const open = await codeRepo.findOpenCode(db, code);
  if (!open) throw new AppError(400, messages.linkInvalid);
  const outcome = await db.transaction().execute(async (transaction) => {
    await usersRepo.lockUser(transaction, open.userId);
    const used = await codeRepo.consumeCode(transaction, code);
    if (used?.userId !== open.userId) throw new AppError(400, messages.linkInvalid);
    await undoRepo.voidUndoCodesIssuedSince(transaction, used.userId, used.id);
    const isTaken = await giveAddressBack(deps, transaction, used);
    await usersRepo.removePassword(transaction, used.userId);
    await socialRepo.deleteIdentitiesLinkedSince(transaction, used.userId, used.createdAt);
    // A passkey added since is as much a way back in for whoever made the change.
    await passkeysRepo.deletePasskeysAddedSince(transaction, used.userId, used.createdAt);
    await deps.secureAccount(transaction, used.userId, { reason: 'email change cancelled' });
    return isTaken ? 'address-taken' : 'secured';
  });
  if (outcome === 'address-taken') {
    throw new AppError(409, messages.addressTaken(deps.supportEmail));
  }
  deps.onEmailChanged?.(open.userId);
  return messages.undone;
}

/**
 * Inside the undo's transaction: the account gets back the address its used code was mailed to,
 * and the address it had moved to is told. Answers whether another account has that address
 * now (then the account keeps the one it has).
 */
async function giveAddressBack(
  deps: EmailChangeUndoDependencies,
  transaction: Transaction<Database>,
  used: { userId: string; email: string },
): Promise<boolean> {
  const current = await usersRepo.findUserById(transaction, used.userId);
  const movedTo =
    current && current.email.toLowerCase() !== used.email.toLowerCase() ? current.email : undefined;
  // The address is held for this account (isAddressHeldForUndo): only an account that
  // had it before the hold began can have it now.
  const isTaken =
    movedTo !== undefined &&
    (await usersRepo.findUserByEmail(transaction, used.email)) !== undefined;
  if (movedTo && !isTaken) {
    await usersRepo.updateEmail(transaction, used.userId, used.email);
    await deps.mail.enqueue(transaction, {
      to: movedTo,
      userId: used.userId,
      template: 'email-change-undone',
      content: emailChangeUndoneEmail({
        previousEmail: used.email,
        supportEmail: deps.supportEmail,
        locale: mailLocaleOf({ locale: current?.locale ?? null }),
      }),
    });
  }
  return isTaken;
}

/** The addresses the member's account moved away from that can still take it back. */
async function listWindows(
  db: Kysely<Database>,
  caller: { userId: string; sessionId: string },
): Promise<EmailChangeUndoWindow[]> {
  const [windows, session] = await Promise.all([
    undoRepo.listUndoWindows(db, caller.userId),
    sessionRepo.findLiveSession(db, caller.sessionId),
  ]);
  return windows.map((window) => ({
    previousEmail: window.email,
    undoableUntil: window.expiresAt.toISOString(),
    canCloseHere: session !== undefined && isOldEnough(session.createdAt, window.issuedAt),
  }));
}

/**
 * Closes the windows of completed changes early, for an owner who is losing the old mailbox:
 * only from a session signed in a week before the change, which whoever made the change
 * with a fresh sign-in does not have. A change still waiting for confirmation keeps its link.
 */
async function closeWindows(
  db: Kysely<Database>,
  caller: { userId: string; sessionId: string },
): Promise<string> {
  const closed = await undoRepo.closeUndoWindowsOlderSession(db, {
    ...caller,
    minSessionAgeDays: CLOSE_UNDO_MIN_SESSION_AGE_DAYS,
  });
  const left = await undoRepo.listUndoWindows(db, caller.userId);
  if (left.length > 0 && closed === 0) {
    throw new AppError(403, emailChangeUndoMessages.notFromThisDevice);
  }
  return emailChangeUndoMessages.closed;
}

/** Whether an address the account moved away from can still take it back. */
async function hasOpenWindow(
  executor: Kysely<Database> | Transaction<Database>,
  userId: string,
): Promise<boolean> {
  return (await undoRepo.listUndoWindows(executor, userId)).length > 0;
}

function isOldEnough(sessionCreatedAt: Date, changeAskedAt: Date): boolean {
  const minimumAgeMs = CLOSE_UNDO_MIN_SESSION_AGE_DAYS * 24 * 60 * 60 * 1000;
  return changeAskedAt.getTime() - sessionCreatedAt.getTime() >= minimumAgeMs;
}
