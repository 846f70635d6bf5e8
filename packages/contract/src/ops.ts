// The support desk (ADR 020): the calls under /ops, made by operators (accounts with the role
// `support` or `admin`, granted on the server with `npm run operator`), and the two calls an
// operator's browser makes before it may use them (its role, and confirming a second factor).
import * as z from 'zod/mini';

import { IsoDateTimeSchema } from './fields';
import { SecondFactorCodeSchema } from './two-step';
import { ProfileSchema, PurchaseItemSchema, PurchaseProviderSchema } from './users';

export const OPERATOR_ROLES = ['support', 'admin'] as const;
export const OperatorRoleSchema = z.enum(OPERATOR_ROLES);
export type OperatorRole = z.infer<typeof OperatorRoleSchema>;

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

const ReasonSchema = z
  .string({ error: supportDeskMessages.reasonRequired })
  .check(
    z.trim(),
    z.minLength(1, supportDeskMessages.reasonRequired),
    z.maxLength(REASON_MAX_LENGTH, supportDeskMessages.reasonTooLong),
  );

/** A path parameter naming a member, a grant or a purchase: ids are UUIDs. */
export const OpsIdParamsSchema = z.object({ id: z.uuid() });

// --- the operator's own state -------------------------------------------------------------

/** `GET /users/operator`: the caller's role on the desk, and whether he may use it now. */
export const OperatorStatusSchema = z.object({
  /** Null for a member who is not an operator. */
  role: z.nullable(OperatorRoleSchema),
  /** Two-step sign-in is on, or the account has a passkey. */
  hasSecondFactor: z.boolean(),
  hasTwoStep: z.boolean(),
  hasPasskey: z.boolean(),
  /** When this session last proved a second factor; null when it never did. */
  secondFactorAt: z.nullable(IsoDateTimeSchema),
  /** Until when the desk is open to this session without proving it again. */
  deskOpenUntil: z.nullable(IsoDateTimeSchema),
  /** Set while a second factor added since the role was granted is under 24 hours old. */
  deskClosedUntil: z.nullable(IsoDateTimeSchema),
});
export type OperatorStatus = z.infer<typeof OperatorStatusSchema>;

/** `POST /auth/mfa/step-up`: proves a second factor in the current session. */
export const StepUpRequestSchema = z.object({ code: SecondFactorCodeSchema });
export type StepUpRequest = z.infer<typeof StepUpRequestSchema>;
export const StepUpResponseSchema = z.object({ secondFactorAt: IsoDateTimeSchema });

// --- finding a member -----------------------------------------------------------------------

export const MemberSearchQuerySchema = z.object({
  query: z
    .string({ error: supportDeskMessages.queryRequired })
    .check(z.trim(), z.minLength(1, supportDeskMessages.queryRequired), z.maxLength(254)),
});

/** What a search term was taken for. */
export const MemberMatchKindSchema = z.enum([
  'email',
  'account id',
  'stripe customer',
  'checkout session',
  'payment intent',
  'original transaction',
  'order id',
]);

export const MemberMatchSchema = z.object({
  id: z.string(),
  email: z.string(),
  createdAt: IsoDateTimeSchema,
  subscriptionEndDate: z.nullable(IsoDateTimeSchema),
  matchedBy: MemberMatchKindSchema,
});
export type MemberMatch = z.infer<typeof MemberMatchSchema>;
export const MemberSearchResponseSchema = z.object({ data: z.array(MemberMatchSchema) });

// --- a member's story -----------------------------------------------------------------------

export const MemberPurchaseSchema = z.object({
  id: z.string(),
  name: z.string(),
  provider: PurchaseProviderSchema,
  amountCents: z.number(),
  currency: z.string(),
  /** What Stripe says was refunded of it so far (0 when nothing, or not a Stripe purchase). */
  refundedCents: z.number(),
  createdAt: IsoDateTimeSchema,
  startsAt: IsoDateTimeSchema,
  expiresAt: IsoDateTimeSchema,
  /** Set while its days do not count (refunded, charged back, grant removed). */
  revokedAt: z.nullable(IsoDateTimeSchema),
  revokedReason: z.nullable(z.string()),
  /** Stripe's ids, App Store's original transaction id: what the desk copies into other tools. */
  providerPaymentId: z.string(),
  paymentIntentId: z.nullable(z.string()),
  /** An admin may refund it through Stripe (a Stripe purchase with something left to refund). */
  refundable: z.boolean(),
  /** For a grant by the support team: its id, which `DELETE /ops/grants/{id}` removes. */
  grantId: z.nullable(z.string()),
});
export type MemberPurchase = z.infer<typeof MemberPurchaseSchema>;

export const MemberStorySchema = z.object({
  profile: z.object({
    id: z.string(),
    email: z.string(),
    createdAt: IsoDateTimeSchema,
    emailVerifiedAt: z.nullable(IsoDateTimeSchema),
    hasPassword: z.boolean(),
    identities: z.array(z.object({ provider: z.string(), email: z.nullable(z.string()) })),
    twoStepEnabled: z.boolean(),
    passkeys: z.number(),
    /** The member's language, once the product keeps one. */
    locale: z.nullable(z.string()),
    stripeCustomerId: z.nullable(z.string()),
    /** The member's own role on the desk, if he is an operator. */
    operatorRole: z.nullable(OperatorRoleSchema),
  }),
  premium: z.object({
    endsAt: z.nullable(IsoDateTimeSchema),
    /** Where the end comes from: the purchase whose period ends last. */
    source: z.nullable(PurchaseProviderSchema),
    sourcePurchaseId: z.nullable(z.string()),
  }),
  /** What the member's Active Subscriptions table lists. */
  activeSubscriptions: z.array(PurchaseItemSchema),
  purchases: z.array(MemberPurchaseSchema),
  /** App Store subscriptions bound to him. */
  appStoreSubscriptions: z.array(
    z.object({
      originalTransactionId: z.string(),
      productId: z.string(),
      environment: z.string(),
      status: z.nullable(z.number()),
      autoRenew: z.nullable(z.boolean()),
    }),
  ),
});
export type MemberStory = z.infer<typeof MemberStorySchema>;

export const TimelineKindSchema = z.enum([
  'account',
  'purchase',
  'app store notification',
  'refund',
  'dispute',
  'ledger',
  'sign-in',
  'sign-in failure',
  'email change',
  'password change',
  'mail',
  'operator action',
  'note',
]);
export type TimelineKind = z.infer<typeof TimelineKindSchema>;

export const TimelineItemSchema = z.object({
  /** Stable across pages. */
  id: z.string(),
  at: IsoDateTimeSchema,
  kind: TimelineKindSchema,
  /** One line: "Bought 1 Month ($9.99) with Stripe", "Mail sent: password reset". */
  title: z.string(),
  detail: z.nullable(z.string()),
  /** The operator behind it, for operator actions and notes. */
  actor: z.nullable(z.string()),
});
export type TimelineItem = z.infer<typeof TimelineItemSchema>;

export const TimelineQuerySchema = z.object({
  cursor: z.optional(z.string().check(z.maxLength(200))),
});
export const TimelineResponseSchema = z.object({
  data: z.array(TimelineItemSchema),
  /** Pass it as `cursor` for the next (older) page; null on the last page. */
  nextCursor: z.nullable(z.string()),
});
export type TimelineResponse = z.infer<typeof TimelineResponseSchema>;

/** "View as the member": what his dashboard and Purchase History show, read only. */
export const MemberViewSchema = z.object({
  profile: ProfileSchema,
  purchases: z.array(PurchaseItemSchema),
});
export type MemberView = z.infer<typeof MemberViewSchema>;

// --- what an operator changes ---------------------------------------------------------------

export const GrantDaysRequestSchema = z.object({
  days: z
    .number({ error: supportDeskMessages.daysInvalid })
    .check(
      z.int({ error: supportDeskMessages.daysInvalid }),
      z.minimum(1, supportDeskMessages.daysInvalid),
      z.maximum(MAX_GRANT_DAYS, supportDeskMessages.daysInvalid),
    ),
  reason: ReasonSchema,
  /** The same key twice (a retry, a double click) grants once. */
  idempotencyKey: z.string().check(z.trim(), z.minLength(8), z.maxLength(100)),
});
export type GrantDaysRequest = z.infer<typeof GrantDaysRequestSchema>;

export const GrantSchema = z.object({
  id: z.string(),
  days: z.number(),
  reason: z.string(),
  grantedAt: IsoDateTimeSchema,
  /** What the member reads in his Purchase History. */
  name: z.string(),
  subscriptionEndDate: z.nullable(IsoDateTimeSchema),
});
export type Grant = z.infer<typeof GrantSchema>;

export const ReasonRequestSchema = z.object({ reason: ReasonSchema });
export type ReasonRequest = z.infer<typeof ReasonRequestSchema>;

export const PremiumEndSchema = z.object({ subscriptionEndDate: z.nullable(IsoDateTimeSchema) });

export const RefundRequestSchema = z.object({
  /** Without it, all that is left to refund. */
  amountCents: z.optional(
    z
      .number({ error: supportDeskMessages.amountInvalid })
      .check(
        z.int({ error: supportDeskMessages.amountInvalid }),
        z.minimum(1, supportDeskMessages.amountInvalid),
      ),
  ),
  reason: ReasonSchema,
});
export type RefundRequest = z.infer<typeof RefundRequestSchema>;

export const RefundSchema = z.object({
  /** Stripe's refund id. */
  id: z.string(),
  amountCents: z.number(),
  currency: z.string(),
  /** Stripe's status: 'succeeded', 'pending', … The days go when Stripe's event arrives. */
  status: z.string(),
});
export type Refund = z.infer<typeof RefundSchema>;

export const EndedSessionsSchema = z.object({ ended: z.number() });

export const ResendMailRequestSchema = z.object({
  mail: z.enum(['verification', 'password-reset']),
});
export type ResendMailRequest = z.infer<typeof ResendMailRequestSchema>;

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

export const NoteSchema = z.object({ id: z.string(), at: IsoDateTimeSchema });

// --- the audit trail ------------------------------------------------------------------------

export const AuditQuerySchema = z.object({
  /** An operator's email (exact, any case) or account id. */
  operator: z.optional(z.string().check(z.trim(), z.maxLength(254))),
  /** A member's email (exact, any case) or account id. */
  member: z.optional(z.string().check(z.trim(), z.maxLength(254))),
  action: z.optional(z.string().check(z.trim(), z.maxLength(64))),
  from: z.optional(IsoDateTimeSchema),
  to: z.optional(IsoDateTimeSchema),
  cursor: z.optional(z.string().check(z.maxLength(200))),
});
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

export const AuditRowSchema = z.object({
  id: z.string(),
  sequence: z.number(),
  at: IsoDateTimeSchema,
  actor: z.object({ id: z.nullable(z.string()), email: z.string(), role: z.string() }),
  action: z.string(),
  member: z.nullable(z.object({ id: z.string(), email: z.nullable(z.string()) })),
  reason: z.nullable(z.string()),
  /** What changed: { before, after }. */
  changes: z.nullable(z.record(z.string(), z.unknown())),
  requestId: z.nullable(z.string()),
  clientAddress: z.nullable(z.string()),
});
export type AuditRow = z.infer<typeof AuditRowSchema>;

export const AuditResponseSchema = z.object({
  data: z.array(AuditRowSchema),
  nextCursor: z.nullable(z.string()),
});
export type AuditResponse = z.infer<typeof AuditResponseSchema>;

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
