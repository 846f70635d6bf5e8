import { z } from 'zod';

import { IsoDateTimeSchema } from './fields';

/** Premium is active while `subscriptionEndDate` is after now. */
export const ProfileSchema = z.object({
  id: z.string(),
  email: z.string(),
  subscriptionEndDate: IsoDateTimeSchema.nullable(),
  /** False for an account that only signs in with Google or Apple (no password to confirm with). */
  hasPassword: z.boolean(),
});
export type Profile = z.infer<typeof ProfileSchema>;

export const SubscriptionProviderSchema = z.enum(['Stripe', 'Apple']);
export type SubscriptionProvider = z.infer<typeof SubscriptionProviderSchema>;

export const SubscriptionItemSchema = z.object({
  name: z.string(),
  provider: SubscriptionProviderSchema,
  createdAt: IsoDateTimeSchema,
  expiresAt: IsoDateTimeSchema,
  /** Set when the purchase was refunded (or charged back): its days no longer count. */
  refundedAt: IsoDateTimeSchema.optional(),
});
export type SubscriptionItem = z.infer<typeof SubscriptionItemSchema>;

export const SubscriptionsResponseSchema = z.object({ data: z.array(SubscriptionItemSchema) });
export type SubscriptionsResponse = z.infer<typeof SubscriptionsResponseSchema>;

/** One place the member is signed in. */
export const SessionItemSchema = z.object({
  id: z.string(),
  createdAt: IsoDateTimeSchema,
  lastUsedAt: IsoDateTimeSchema,
  /** "Chrome on macOS", from the browser at sign-in. */
  device: z.string(),
  /** How it began; null for a session from before this was recorded. */
  method: z.enum(['password', 'google', 'apple']).nullable(),
  /** The session making this call. */
  current: z.boolean(),
});
export type SessionItem = z.infer<typeof SessionItemSchema>;

export const SessionsResponseSchema = z.object({ data: z.array(SessionItemSchema) });
export type SessionsResponse = z.infer<typeof SessionsResponseSchema>;

export const SessionParamsSchema = z.object({ id: z.string() });

export const MessageSchema = z.object({ message: z.string() });

/** "Download your data": everything the product keeps about the member, never a secret. */
export const DataExportSchema = z.object({
  exportedAt: IsoDateTimeSchema,
  profile: z.object({
    id: z.string(),
    email: z.string(),
    createdAt: IsoDateTimeSchema,
    emailVerifiedAt: IsoDateTimeSchema.nullable(),
    hasPassword: z.boolean(),
    subscriptionEndDate: IsoDateTimeSchema.nullable(),
  }),
  identities: z.array(
    z.object({
      provider: z.string(),
      email: z.string().nullable(),
      linkedAt: IsoDateTimeSchema,
      lastSignInAt: IsoDateTimeSchema,
    }),
  ),
  sessions: z.array(
    z.object({
      createdAt: IsoDateTimeSchema,
      lastUsedAt: IsoDateTimeSchema,
      expiresAt: IsoDateTimeSchema,
      endedAt: IsoDateTimeSchema.nullable(),
      device: z.string().nullable(),
      method: z.string().nullable(),
    }),
  ),
  purchases: z.array(
    z.object({
      plan: z.string(),
      provider: z.string(),
      environment: z.string().nullable(),
      amount: z.number(),
      currency: z.string(),
      purchasedAt: IsoDateTimeSchema,
      startsAt: IsoDateTimeSchema,
      expiresAt: IsoDateTimeSchema,
      refundedAt: IsoDateTimeSchema.nullable(),
      refundedAmount: z.number().nullable(),
    }),
  ),
  appStoreSubscriptions: z.array(
    z.object({
      originalTransactionId: z.string(),
      productId: z.string(),
      environment: z.string(),
      autoRenew: z.boolean().nullable(),
      gracePeriodExpiresAt: IsoDateTimeSchema.nullable(),
    }),
  ),
  emails: z.array(
    z.object({
      template: z.string(),
      recipient: z.string(),
      createdAt: IsoDateTimeSchema,
      sentAt: IsoDateTimeSchema.nullable(),
    }),
  ),
});
export type DataExport = z.infer<typeof DataExportSchema>;
