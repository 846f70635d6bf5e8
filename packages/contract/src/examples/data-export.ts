// The example of "Download your data" (exportData), apart from profile.ts for its length: all the
// product keeps of Alex on 26 November, oldest first, and never a secret.
import type { CallExamples } from './call-example';
import { memberPreferences, memberSignIns } from './member';
import {
  APP_STORE_PRODUCT_ID,
  APPLE_LINKED_AT,
  APPLE_PURCHASE_ENDS_AT,
  APPLE_PURCHASED_AT,
  EMAIL_VERIFIED_AT,
  GOOGLE_LINKED_AT,
  GRANT_NAME,
  GRANTED_AT,
  MAC_DEVICE,
  MAC_PASSKEY_ADDED_AT,
  MAC_PASSKEY_NAME,
  MEMBER_EMAIL,
  MEMBER_ID,
  NOW,
  ORIGINAL_TRANSACTION_ID,
  PASSKEY_ADDED_AT,
  PASSKEY_NAME,
  PHONE_DEVICE,
  PHONE_SESSION_LAST_USED_AT,
  PHONE_SESSION_STARTED_AT,
  PREMIUM_ENDS_AT,
  REGISTERED_AT,
  SESSION_STARTED_AT,
  STRIPE_PURCHASE_ENDS_AT,
  STRIPE_PURCHASED_AT,
  TWO_STEP_ON_AT,
} from './story';

/** A session lives 30 days after its last use. */
const THIRTY_DAYS_AFTER_NOW = '2026-12-26T10:05:00.000Z';

/** A mail of the outbox, sent a second after it was queued. */
function mail(template: string, createdAt: string) {
  const sentAt = new Date(new Date(createdAt).getTime() + 1000).toISOString();
  return { template, recipient: MEMBER_EMAIL, createdAt, sentAt };
}

export const dataExportExample: CallExamples['exportData']['response'] = {
  exportedAt: NOW,
  profile: {
    id: MEMBER_ID,
    email: MEMBER_EMAIL,
    createdAt: REGISTERED_AT,
    emailVerifiedAt: EMAIL_VERIFIED_AT,
    hasPassword: true,
    subscriptionEndDate: PREMIUM_ENDS_AT,
    twoStepEnabled: true,
  },
  identities: [
    {
      provider: 'google',
      email: MEMBER_EMAIL,
      linkedAt: GOOGLE_LINKED_AT,
      lastSignInAt: GOOGLE_LINKED_AT,
    },
    {
      provider: 'apple',
      email: MEMBER_EMAIL,
      linkedAt: APPLE_LINKED_AT,
      lastSignInAt: APPLE_LINKED_AT,
    },
  ],
  sessions: [
    {
      createdAt: SESSION_STARTED_AT,
      lastUsedAt: NOW,
      expiresAt: THIRTY_DAYS_AFTER_NOW,
      endedAt: null,
      device: MAC_DEVICE,
      method: 'password',
    },
    {
      createdAt: PHONE_SESSION_STARTED_AT,
      lastUsedAt: PHONE_SESSION_LAST_USED_AT,
      expiresAt: '2026-12-25T21:40:09.655Z',
      endedAt: null,
      device: PHONE_DEVICE,
      method: 'passkey',
    },
  ],
  purchases: [
    {
      plan: '1 Month',
      provider: 'Stripe',
      environment: null,
      amount: 2999,
      currency: 'usd',
      purchasedAt: STRIPE_PURCHASED_AT,
      startsAt: STRIPE_PURCHASED_AT,
      expiresAt: STRIPE_PURCHASE_ENDS_AT,
      refundedAt: null,
      refundedAmount: null,
    },
    {
      plan: '1 Week',
      provider: 'Apple',
      environment: 'Production',
      amount: 999,
      currency: 'usd',
      purchasedAt: APPLE_PURCHASED_AT,
      startsAt: STRIPE_PURCHASE_ENDS_AT,
      expiresAt: APPLE_PURCHASE_ENDS_AT,
      refundedAt: null,
      refundedAmount: null,
    },
    {
      plan: GRANT_NAME,
      provider: 'Support',
      environment: null,
      amount: 0,
      currency: 'usd',
      purchasedAt: GRANTED_AT,
      startsAt: APPLE_PURCHASE_ENDS_AT,
      expiresAt: PREMIUM_ENDS_AT,
      refundedAt: null,
      refundedAmount: null,
    },
  ],
  appStoreSubscriptions: [
    {
      originalTransactionId: ORIGINAL_TRANSACTION_ID,
      productId: APP_STORE_PRODUCT_ID,
      environment: 'Production',
      autoRenew: true,
      gracePeriodExpiresAt: null,
    },
  ],
  passkeys: [
    {
      name: PASSKEY_NAME,
      createdAt: PASSKEY_ADDED_AT,
      lastUsedAt: PHONE_SESSION_STARTED_AT,
      transports: ['internal', 'hybrid'],
    },
    {
      name: MAC_PASSKEY_NAME,
      createdAt: MAC_PASSKEY_ADDED_AT,
      lastUsedAt: null,
      transports: ['hybrid', 'internal'],
    },
  ],
  emails: [
    mail('sign-in-method-added', TWO_STEP_ON_AT),
    mail('passkey-added', PASSKEY_ADDED_AT),
    mail('new-sign-in', PHONE_SESSION_STARTED_AT),
    mail('support-grant', GRANTED_AT),
    mail('passkey-added', MAC_PASSKEY_ADDED_AT),
  ],
  signIns: [...memberSignIns].reverse(),
  preferences: memberPreferences,
  appleRefundRequests: [],
};
