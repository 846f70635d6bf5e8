// Examples of the Payments calls (call-example.ts says what an example is; story.ts, who Alex is):
// his checkout of 1 Month with Stripe, and his week bought in the iPhone app.
import type { CallExamples } from './call-example';
import {
  APPLE_ORDER_ID,
  APPLE_PURCHASE_ENDS_AT,
  CHECKOUT_SESSION_ID,
  MEMBER_EMAIL,
  MEMBER_ID,
  PAYMENT_INTENT_ID,
  PLANS,
  PREMIUM_ENDS_AT,
  SIGNED_NOTIFICATION,
  SIGNED_TRANSACTION,
  STRIPE_CUSTOMER_ID,
  STRIPE_EVENT_ID,
  STRIPE_PURCHASED_AT,
} from './story';

/** Unix seconds, as Stripe writes its times. */
const STRIPE_PURCHASED_UNIX = Date.parse(STRIPE_PURCHASED_AT) / 1000;

/**
 * The event Stripe posts when his checkout is paid (trimmed to the fields the API reads; Stripe
 * sends the whole Checkout Session). Signed in Stripe-Signature, `t=<unix time>,v1=<hex>`.
 */
const checkoutCompletedEvent = {
  id: STRIPE_EVENT_ID,
  object: 'event' as const,
  type: 'checkout.session.completed',
  api_version: '2026-10-28.endive',
  created: STRIPE_PURCHASED_UNIX,
  livemode: false,
  pending_webhooks: 1,
  request: { id: null, idempotency_key: null },
  data: {
    object: {
      id: CHECKOUT_SESSION_ID,
      object: 'checkout.session',
      mode: 'payment',
      status: 'complete',
      payment_status: 'paid',
      amount_total: 2999,
      currency: 'usd',
      created: STRIPE_PURCHASED_UNIX - 94,
      customer: STRIPE_CUSTOMER_ID,
      customer_details: { email: MEMBER_EMAIL },
      client_reference_id: MEMBER_ID,
      payment_intent: PAYMENT_INTENT_ID,
      metadata: { planId: '1-month', email: MEMBER_EMAIL, userId: MEMBER_ID },
    },
  },
};

export const paymentExamples: Pick<
  CallExamples,
  | 'listPlans'
  | 'startCheckout'
  | 'describeCheckout'
  | 'openCustomerPortal'
  | 'receiveStripeEvent'
  | 'receiveAppStoreNotification'
  | 'recordAppStoreTransaction'
  | 'claimAppStorePurchase'
> = {
  listPlans: { response: PLANS },
  startCheckout: {
    body: { planId: '1-month', email: MEMBER_EMAIL },
    response: {
      paymentURL: `https://checkout.stripe.com/c/pay/${CHECKOUT_SESSION_ID}#fidkdWxOYHwnPyd1blpxYHZxWjA0VkBrQ3xwXUJwYWt2Tk1kaTdMN3NOcnBPR3NuZEZqSGlNSH19`,
    },
  },
  describeCheckout: {
    params: { session: CHECKOUT_SESSION_ID },
    response: {
      id: CHECKOUT_SESSION_ID,
      durationDays: 30,
      beginsAt: STRIPE_PURCHASED_AT,
      providerType: 'Stripe',
      price: 29.99,
    },
  },
  openCustomerPortal: {
    response: {
      url: 'https://billing.stripe.com/p/session/test_YWNjdF8xUHo3R2tMbUs4c0hxM3JOLF9SNHhUZDZlRjJ3ZzlZbjA0c1FtNWpMMHZiTmJhUWRj0100Xk2hWqUz',
    },
  },
  receiveStripeEvent: {
    signedBody: checkoutCompletedEvent,
    signature: `t=${checkoutCompletedEvent.created},v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd`,
    response: { received: true },
  },
  receiveAppStoreNotification: {
    body: { signedPayload: SIGNED_NOTIFICATION },
    response: { received: true },
  },
  // Right after his purchase in the app: his week counts after the month he bought on the web.
  recordAppStoreTransaction: {
    body: { signedTransaction: SIGNED_TRANSACTION },
    response: { subscriptionEndDate: APPLE_PURCHASE_ENDS_AT },
  },
  // The same week claimed from the web by the order id of Apple's receipt email, after the grant.
  claimAppStorePurchase: {
    body: { orderId: APPLE_ORDER_ID },
    response: { subscriptionEndDate: PREMIUM_ENDS_AT },
  },
};
