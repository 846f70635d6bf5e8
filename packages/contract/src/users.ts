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
