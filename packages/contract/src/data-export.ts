// "Download your data" (GET /users/export): a file of its own, as only the API and the tests
// read it; the pages that read the profile's schemas (users.ts) carry none of it.
import * as z from 'zod/mini';

import { IsoDateTimeSchema } from './fields';
import { PreferencesSchema } from './preferences';
import { SignInItemSchema } from './sign-ins';

/** "Download your data": everything the product keeps about the member, never a secret. */
export const DataExportSchema = z.object({
  exportedAt: IsoDateTimeSchema,
  profile: z.object({
    id: z.string(),
    email: z.string(),
    createdAt: IsoDateTimeSchema,
    emailVerifiedAt: z.nullable(IsoDateTimeSchema),
    hasPassword: z.boolean(),
    subscriptionEndDate: z.nullable(IsoDateTimeSchema),
    /** Whether two-step sign-in is on (never its secret or recovery codes). */
    twoStepEnabled: z.boolean(),
  }),
  identities: z.array(
    z.object({
      provider: z.string(),
      email: z.nullable(z.string()),
      linkedAt: IsoDateTimeSchema,
      lastSignInAt: IsoDateTimeSchema,
    }),
  ),
  sessions: z.array(
    z.object({
      createdAt: IsoDateTimeSchema,
      lastUsedAt: IsoDateTimeSchema,
      expiresAt: IsoDateTimeSchema,
      endedAt: z.nullable(IsoDateTimeSchema),
      device: z.nullable(z.string()),
      method: z.nullable(z.string()),
    }),
  ),
  purchases: z.array(
    z.object({
      plan: z.string(),
      provider: z.string(),
      environment: z.nullable(z.string()),
      amount: z.number(),
      currency: z.string(),
      purchasedAt: IsoDateTimeSchema,
      startsAt: IsoDateTimeSchema,
      expiresAt: IsoDateTimeSchema,
      refundedAt: z.nullable(IsoDateTimeSchema),
      refundedAmount: z.nullable(z.number()),
    }),
  ),
  appStoreSubscriptions: z.array(
    z.object({
      originalTransactionId: z.string(),
      productId: z.string(),
      environment: z.string(),
      autoRenew: z.nullable(z.boolean()),
      gracePeriodExpiresAt: z.nullable(IsoDateTimeSchema),
    }),
  ),
  /** The member's passkeys: never their keys. */
  passkeys: z.array(
    z.object({
      name: z.string(),
      createdAt: IsoDateTimeSchema,
      lastUsedAt: z.nullable(IsoDateTimeSchema),
      transports: z.array(z.string()),
    }),
  ),
  emails: z.array(
    z.object({
      template: z.string(),
      recipient: z.string(),
      createdAt: IsoDateTimeSchema,
      sentAt: z.nullable(IsoDateTimeSchema),
    }),
  ),
  /** Every sign-in and failed attempt kept (90 days), oldest first. */
  signIns: z.array(SignInItemSchema),
  /** What he chose in Account Settings, with when he gave or withdrew the Apple consent. */
  preferences: PreferencesSchema,
  /**
   * Apple's refund requests about his App Store purchases that he consented to have answered,
   * and what became of each answer ('sent', 'consent-withdrawn', 'given-up'; null: pending).
   */
  appleRefundRequests: z.array(
    z.object({
      requestedAt: IsoDateTimeSchema,
      reason: z.nullable(z.string()),
      outcome: z.nullable(z.string()),
      closedAt: z.nullable(IsoDateTimeSchema),
    }),
  ),
});
export type DataExport = z.infer<typeof DataExportSchema>;
