// The support desk (ADR 020): the calls under /ops, made by operators (accounts with the role
// `support` or `admin`, granted on the server with `npm run operator`), and the two calls an
// operator's browser makes before it may use them (its role, and confirming a second factor). The
// desk's words, limits and form requests are in ops-forms.ts.
import * as z from 'zod/mini';

import { IsoDateTimeSchema } from './fields';
import {
  controlCharactersMessage,
  MAX_GRANT_DAYS,
  NO_CONTROL_CHARACTERS,
  ReasonSchema,
  supportDeskMessages,
} from './ops-forms';
import { ProfileSchema, PurchaseItemSchema, PurchaseProviderSchema } from './users';

export const OPERATOR_ROLES = ['support', 'admin'] as const;
export const OperatorRoleSchema = z.enum(OPERATOR_ROLES);
export type OperatorRole = z.infer<typeof OperatorRoleSchema>;

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

export const StepUpResponseSchema = z.object({ secondFactorAt: IsoDateTimeSchema });

// --- finding a member -----------------------------------------------------------------------

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
    /** The member's language (users.locale); null: never chosen (English). */
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
  /** Stripe's status: 'succeeded', 'pending', ... The days go when Stripe's event arrives. */
  status: z.string(),
});
export type Refund = z.infer<typeof RefundSchema>;

export const EndedSessionsSchema = z.object({ ended: z.number() });

export const ResendMailRequestSchema = z.object({
  mail: z.enum(['verification', 'password-reset']),
});
export type ResendMailRequest = z.infer<typeof ResendMailRequestSchema>;

export const NoteSchema = z.object({ id: z.string(), at: IsoDateTimeSchema });

// --- the audit trail ------------------------------------------------------------------------

/** A filter of the audit list: trimmed, bounded, no control character. */
const auditFilter = (maxLength: number) =>
  z.optional(
    z
      .string()
      .check(
        z.trim(),
        z.maxLength(maxLength),
        z.regex(NO_CONTROL_CHARACTERS, controlCharactersMessage),
      ),
  );

export const AuditQuerySchema = z.object({
  /** An operator's email (exact, any case) or account id. */
  operator: auditFilter(254),
  /** A member's email (exact, any case) or account id. */
  member: auditFilter(254),
  action: auditFilter(64),
  from: z.optional(IsoDateTimeSchema),
  to: z.optional(IsoDateTimeSchema),
  cursor: auditFilter(200),
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
