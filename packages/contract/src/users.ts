import * as z from 'zod/mini';

import { AcknowledgementSchema } from './errors';
import { CurrentPasswordSchema, IsoDateTimeSchema, PATH_PARAMETER_MAX_LENGTH } from './fields';
import { fieldMessages } from './field-messages';
import { SUPPORTED_LOCALES } from './i18n/locales';
import { SecondFactorCodeSchema } from './two-step';

/**
 * One of the languages the product speaks (i18n/locales.ts), as a member's choice. Here and not
 * in i18n/locales.ts: that file stays free of zod (every page loads it).
 */
export const LocaleSchema = z.enum(SUPPORTED_LOCALES);

/** Premium is active while `subscriptionEndDate` is after now. */
export const ProfileSchema = z.object({
  id: z.string(),
  email: z.string(),
  subscriptionEndDate: z.nullable(IsoDateTimeSchema),
  /** False for an account that only signs in with Google or Apple (no password to confirm with). */
  hasPassword: z.boolean(),
  /** Sign-ins ask for a code from an authenticator app; changes of credentials ask for one too. */
  twoStepEnabled: z.boolean(),
  /** The language he reads the product and its mails in; null: never chosen (English). */
  locale: z.nullable(LocaleSchema),
});
export type Profile = z.infer<typeof ProfileSchema>;

/**
 * Where a purchase was made: the web (Stripe) or the iPhone app (the App Store); 'Support' for
 * premium days granted by the support team (its name gives the reason).
 */
export const PurchaseProviderSchema = z.enum(['Stripe', 'Apple', 'Support']);
export type PurchaseProvider = z.infer<typeof PurchaseProviderSchema>;

/**
 * One purchase, from Stripe or the App Store, with the days it granted (README, Glossary): what
 * `GET /users/subscriptions/personal` lists, its path kept from the specification.
 */
export const PurchaseItemSchema = z.object({
  name: z.string(),
  provider: PurchaseProviderSchema,
  createdAt: IsoDateTimeSchema,
  expiresAt: IsoDateTimeSchema,
  /** Set when the purchase was refunded (or charged back): its days no longer count. */
  refundedAt: z.optional(IsoDateTimeSchema),
  /**
   * With `refundedAt`, how the money went back: 'chargeback' when the card holder's bank took it
   * (a dispute lost), 'refund' otherwise. Beyond the specification's fields; clients may ignore it.
   */
  refundKind: z.optional(z.enum(['refund', 'chargeback'])),
});
export type PurchaseItem = z.infer<typeof PurchaseItemSchema>;

/**
 * A purchase still running: not refunded, and its days not over at `now` (README, Glossary:
 * Subscription). What the 'Active Subscriptions' table lists and what deleting an account ends.
 */
export function isRunningPurchase(
  purchase: Pick<PurchaseItem, 'refundedAt' | 'expiresAt'>,
  now: number,
): boolean {
  return !purchase.refundedAt && new Date(purchase.expiresAt).getTime() > now;
}

export const PurchasesResponseSchema = z.object({ data: z.array(PurchaseItemSchema) });
export type PurchasesResponse = z.infer<typeof PurchasesResponseSchema>;

/** One place the member is signed in. */
export const SessionItemSchema = z.object({
  id: z.string(),
  createdAt: IsoDateTimeSchema,
  lastUsedAt: IsoDateTimeSchema,
  /** "Chrome on macOS", from the browser at sign-in. */
  device: z.string(),
  /** How it began; null for a session from before this was recorded. */
  method: z.nullable(z.enum(['password', 'google', 'apple', 'passkey'])),
  /** The session making this call. */
  current: z.boolean(),
});
export type SessionItem = z.infer<typeof SessionItemSchema>;

export const SessionsResponseSchema = z.object({ data: z.array(SessionItemSchema) });
export type SessionsResponse = z.infer<typeof SessionsResponseSchema>;

export const SessionParamsSchema = z.object({
  id: z.string().check(z.maxLength(PATH_PARAMETER_MAX_LENGTH)),
});

/** The plain acknowledgement under the name the profile calls use: one shape, one name in the API document. */
export const MessageSchema = AcknowledgementSchema;

/**
 * "Delete account". `password` is needed when the account has one; an account without one
 * (Google or Apple only) needs a sign-in within the last 10 minutes instead.
 */
export const DeleteAccountRequestSchema = z.object({
  password: z.optional(CurrentPasswordSchema),
  /**
   * The member has read that deleting the account does not cancel his App Store subscription
   * (409 until true, while one is active).
   */
  keepsAppStoreSubscription: z.optional(z.boolean()),
  /** Needed while two-step sign-in is on: a code from the app, or a recovery code. */
  code: z.optional(SecondFactorCodeSchema),
});
export type DeleteAccountRequest = z.infer<typeof DeleteAccountRequestSchema>;

/** The word typed to confirm, so a deletion is never one stray click. */
export const DELETE_ACCOUNT_CONFIRMATION_WORD = 'DELETE';

export const DeleteAccountFormSchema = z
  .extend(DeleteAccountRequestSchema, { confirmation: z.string() })
  .check(
    z.refine((form) => form.confirmation.trim() === DELETE_ACCOUNT_CONFIRMATION_WORD, {
      message: fieldMessages.typeDeleteToConfirm,
      path: ['confirmation'],
    }),
  );
export type DeleteAccountForm = z.infer<typeof DeleteAccountFormSchema>;

/** What the API answers when a deletion needs something more (shown as they are by the page). */
export const deleteAccountMessages = {
  deleted: 'Your account has been deleted',
  passwordNeeded: 'Enter your current password to delete your account',
  signInAgain:
    'For your safety, sign in again (within the last 10 minutes) before deleting your account',
  appStoreSubscriptionActive:
    'You have an active App Store subscription. Deleting your account does not cancel it: cancel it on your iPhone in Settings → your name → Subscriptions, or confirm that you will keep it.',
  undoWindowOpen:
    'Your email address was changed recently and your previous address can still undo that change. The account can be deleted once that time is over (Account Settings says until when), or after you close it there.',
} as const;

/**
 * An address the account moved away from that can still take it back with the "This was not me"
 * link mailed to it (ADR 016): until `undoableUntil`, at most 72 hours after the change.
 */
export const EmailChangeUndoWindowSchema = z.object({
  previousEmail: z.string(),
  undoableUntil: IsoDateTimeSchema,
  /**
   * Whether the session making this call may close the window early: one signed in at least 7
   * days before the change was asked for (a session opened by whoever made the change cannot).
   */
  canCloseHere: z.boolean(),
});
export type EmailChangeUndoWindow = z.infer<typeof EmailChangeUndoWindowSchema>;

export const EmailChangeUndoWindowsSchema = z.object({
  undoWindows: z.array(EmailChangeUndoWindowSchema),
});
export type EmailChangeUndoWindows = z.infer<typeof EmailChangeUndoWindowsSchema>;

/** What closing the undo windows early answers. */
export const emailChangeUndoMessages = {
  closed: 'Your previous address can no longer undo the change.',
  notFromThisDevice:
    'For your safety, only a device that was signed in at least 7 days before the change can close this early. Otherwise it closes by itself at the time shown.',
} as const;
