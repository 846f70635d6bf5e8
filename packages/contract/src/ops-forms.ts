// The support desk's words, limits and the requests of its forms (ADR 020), apart from the rest of
// ops.ts: the web app's forms take these, and a module of the contract that a page imports comes
// into its JavaScript whole. ops.ts's answers and numeric requests would bring zod's number,
// record and uuid checks into the form code that every page with a form loads.
import * as z from 'zod/mini';

import { EMAIL_MAX_LENGTH } from './fields';
import { SecondFactorCodeSchema } from './two-step';

/** A second factor proved within this long lets an operator use the desk. */
export const OPERATOR_SECOND_FACTOR_HOURS = 12;
/**
 * A second factor added after the role was granted opens the desk only once it is this old: a
 * thief holding an operator's password or session cannot enrol his own and walk in (the owner is
 * mailed when a factor is added, and has the day to react).
 */
export const NEW_SECOND_FACTOR_WAIT_HOURS = 24;
/** The most days `support` may grant in one action; `admin` may grant up to MAX_GRANT_DAYS. */
export const SUPPORT_MAX_GRANT_DAYS = 31;
export const MAX_GRANT_DAYS = 3650;
export const REASON_MAX_LENGTH = 500;
export const NOTE_MAX_LENGTH = 2000;

/** What the desk answers, written once for the API and the web app. */
export const supportDeskMessages = {
  notAnOperator: 'Only the support team can use the support desk',
  confirmSecondFactor: 'Confirm your second factor to use the support desk',
  secondFactorTooNew: `A second factor was added to your account lately: the support desk opens ${NEW_SECOND_FACTOR_WAIT_HOURS} hours after it was added`,
  ownAccount: 'Operators cannot change their own premium or purchases from the support desk',
  refundUnderWay: 'Another refund of this purchase is under way: reload to see it',
  noSecondFactor:
    'Turn on two-step sign-in or add a passkey in Account Settings to use the support desk',
  adminOnly: 'Only an admin can do this',
  supportGrantLimit: `Support can grant up to ${SUPPORT_MAX_GRANT_DAYS} days at a time; ask an admin for more`,
  memberNotFound: 'No such member',
  grantNotFound: 'No such grant',
  grantAlreadyRemoved: 'This grant was removed already',
  idempotencyKeyReused: 'This request key was used for a different grant',
  purchaseNotFound: 'No such purchase',
  appStoreRefund:
    'App Store purchases are refunded by Apple: the member asks at https://reportaproblem.apple.com',
  notRefundable: 'This purchase cannot be refunded',
  refundTooLarge: 'The refund is more than what is left to refund',
  reasonRequired: 'Reason is required',
  reasonTooLong: `Use at most ${REASON_MAX_LENGTH} characters`,
  noteRequired: 'Note is required',
  noteTooLong: `Use at most ${NOTE_MAX_LENGTH} characters`,
  daysInvalid: `Days must be a whole number from 1 to ${MAX_GRANT_DAYS}`,
  amountInvalid: 'Amount must be a whole number of cents above 0',
  queryRequired: 'Type an email, an id or an order id',
  mailNotNeeded: 'This member has no use for that mail',
} as const;

/** Apple's page where a member asks for a refund of an App Store purchase. */
export const APPLE_REFUND_URL = 'https://reportaproblem.apple.com';

export const ReasonSchema = z
  .string({ error: supportDeskMessages.reasonRequired })
  .check(
    z.trim(),
    z.minLength(1, supportDeskMessages.reasonRequired),
    z.maxLength(REASON_MAX_LENGTH, supportDeskMessages.reasonTooLong),
  );

/** `POST /auth/mfa/step-up`: proves a second factor in the current session. */
export const StepUpRequestSchema = z.object({ code: SecondFactorCodeSchema });
export type StepUpRequest = z.infer<typeof StepUpRequestSchema>;
/** An email, an id or an order id: none is longer than the longest email. */
/**
 * No control characters in a term typed into the desk's search or filters: nobody types one, and
 * PostgreSQL refuses a NUL in text (the answer would be a 500 rather than a 400).
 */
// eslint-disable-next-line no-control-regex -- the very characters it refuses
export const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;
export const controlCharactersMessage = 'Remove the control characters';

export const MemberSearchQuerySchema = z.object({
  query: z
    .string({ error: supportDeskMessages.queryRequired })
    .check(
      z.trim(),
      z.minLength(1, supportDeskMessages.queryRequired),
      z.maxLength(EMAIL_MAX_LENGTH),
      z.regex(NO_CONTROL_CHARACTERS, controlCharactersMessage),
    ),
});

export const ReasonRequestSchema = z.object({ reason: ReasonSchema });
export type ReasonRequest = z.infer<typeof ReasonRequestSchema>;

export const NoteRequestSchema = z.object({
  text: z
    .string({ error: supportDeskMessages.noteRequired })
    .check(
      z.trim(),
      z.minLength(1, supportDeskMessages.noteRequired),
      z.maxLength(NOTE_MAX_LENGTH, supportDeskMessages.noteTooLong),
    ),
});
export type NoteRequest = z.infer<typeof NoteRequestSchema>;

/** The audit actions, by name (also the Prometheus counter's label values). */
export const AUDIT_ACTIONS = [
  'operator.grant-role',
  'operator.revoke-role',
  'member.view',
  'member.timeline',
  'member.view-as',
  'grant.add',
  'grant.remove',
  'refund.create',
  'sessions.revoke',
  'mail.resend',
  'note.add',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
