import * as z from 'zod/mini';

import { EmailSchema, IsoDateTimeSchema, PATH_PARAMETER_MAX_LENGTH } from './fields';
import { fieldMessages } from './field-messages';

/** A plan as the web shows it; `price` is in US dollars (the API stores integer cents). */
export const PlanSchema = z.object({
  id: z.string(),
  name: z.string(),
  days: z.number().check(z.int(), z.positive()),
  price: z.number().check(z.nonnegative()),
});
export type Plan = z.infer<typeof PlanSchema>;

export const PlansResponseSchema = z.array(PlanSchema);
export type PlansResponse = z.infer<typeof PlansResponseSchema>;

export const StartCheckoutRequestSchema = z.object({
  planId: z
    .string({ error: fieldMessages.planRequired })
    .check(z.minLength(1, fieldMessages.planRequired), z.maxLength(64, fieldMessages.planRequired)),
  email: EmailSchema,
});
export type StartCheckoutRequest = z.infer<typeof StartCheckoutRequestSchema>;

export const StartCheckoutResponseSchema = z.object({ paymentURL: z.url() });
export type StartCheckoutResponse = z.infer<typeof StartCheckoutResponseSchema>;

export const CheckoutSessionParamsSchema = z.object({
  session: z.string().check(z.minLength(1), z.maxLength(PATH_PARAMETER_MAX_LENGTH)),
});

/**
 * What /purchase/complete shows about a payment. No personal data: the call needs no sign-in, so
 * anyone holding the session id can read it.
 */
export const CheckoutSessionSchema = z.object({
  id: z.string(),
  durationDays: z.number().check(z.int(), z.positive()),
  beginsAt: IsoDateTimeSchema,
  providerType: z.string(),
  price: z.number().check(z.nonnegative()),
});
export type CheckoutSession = z.infer<typeof CheckoutSessionSchema>;

export const CustomerPortalResponseSchema = z.object({ url: z.url() });
export type CustomerPortalResponse = z.infer<typeof CustomerPortalResponseSchema>;

/** Stripe's webhook gets this once the event is recorded (or known not to concern us). */
export const StripeEventReceivedSchema = z.object({ received: z.literal(true) });

/** The event types the webhook acts on; any other is acknowledged and left alone. */
export const HANDLED_STRIPE_EVENT_TYPES = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'charge.refunded',
  'charge.refund.updated',
  'charge.dispute.created',
  'charge.dispute.closed',
] as const;

/**
 * A Stripe event as Stripe posts it (https://docs.stripe.com/api/events/object), for the API
 * document only: the webhook verifies the raw bytes against Stripe-Signature and hands them to
 * Stripe's SDK, so this schema never parses a delivery.
 */
export const StripeEventSchema = z.looseObject({
  id: z.string().check(z.regex(/^evt_/)),
  object: z.literal('event'),
  type: z.string(),
  created: z.number().check(z.int()),
  livemode: z.boolean(),
  api_version: z.nullable(z.string()),
  data: z.looseObject({ object: z.looseObject({ id: z.optional(z.string()) }) }),
});

/** App Store Server Notifications V2: Apple's signed payload, verified before anything is read. */
export const AppStoreNotificationRequestSchema = z.object({
  signedPayload: z
    .string({ error: 'signedPayload is required' })
    .check(z.minLength(1, 'signedPayload is required')),
});
export type AppStoreNotificationRequest = z.infer<typeof AppStoreNotificationRequestSchema>;

/** Apple gets this once the notification is recorded. */
export const AppStoreNotificationReceivedSchema = z.object({ received: z.literal(true) });

/** What the iOS app posts after a StoreKit 2 purchase or restore. */
export const AppStoreTransactionRequestSchema = z.object({
  signedTransaction: z
    .string({ error: 'signedTransaction is required' })
    .check(z.minLength(1, 'signedTransaction is required')),
});
export type AppStoreTransactionRequest = z.infer<typeof AppStoreTransactionRequestSchema>;

export const AppStoreTransactionResponseSchema = z.object({
  subscriptionEndDate: z.nullable(IsoDateTimeSchema),
});
export type AppStoreTransactionResponse = z.infer<typeof AppStoreTransactionResponseSchema>;
