// What several examples show of Alex alike (his profile, purchases, sign-ins, preferences), built
// once from story.ts's values.
import {
  APPLE_PURCHASE_ENDS_AT,
  APPLE_PURCHASED_AT,
  GRANT_NAME,
  GRANTED_AT,
  MAC_CLIENT_ADDRESS,
  MAC_DEVICE,
  MEMBER_EMAIL,
  MEMBER_ID,
  PHONE_CLIENT_ADDRESS,
  PHONE_DEVICE,
  PHONE_SESSION_STARTED_AT,
  PREMIUM_ENDS_AT,
  SESSION_STARTED_AT,
  STRIPE_PURCHASE_ENDS_AT,
  STRIPE_PURCHASED_AT,
} from './story';

/** What his dashboard reads. */
export const memberProfile = {
  id: MEMBER_ID,
  email: MEMBER_EMAIL,
  subscriptionEndDate: PREMIUM_ENDS_AT,
  hasPassword: true,
  twoStepEnabled: true,
  locale: 'en' as const,
};

/** His Purchase History, newest first: the month on the web, the week on his iPhone, the grant. */
export const memberPurchaseItems = [
  {
    name: GRANT_NAME,
    provider: 'Support' as const,
    createdAt: GRANTED_AT,
    expiresAt: PREMIUM_ENDS_AT,
  },
  {
    name: '1 Week',
    provider: 'Apple' as const,
    createdAt: APPLE_PURCHASED_AT,
    expiresAt: APPLE_PURCHASE_ENDS_AT,
  },
  {
    name: '1 Month',
    provider: 'Stripe' as const,
    createdAt: STRIPE_PURCHASED_AT,
    expiresAt: STRIPE_PURCHASE_ENDS_AT,
  },
];

/** His sign-ins, newest first, with one wrong password from an address he never used. */
export const memberSignIns = [
  {
    at: PHONE_SESSION_STARTED_AT,
    method: 'passkey',
    device: PHONE_DEVICE,
    address: PHONE_CLIENT_ADDRESS,
    outcome: 'success' as const,
  },
  {
    at: '2026-11-12T03:17:44.902Z',
    method: 'password',
    device: 'Firefox on Windows',
    address: '198.51.100.77',
    outcome: 'failure' as const,
  },
  {
    at: SESSION_STARTED_AT,
    method: 'password',
    device: MAC_DEVICE,
    address: MAC_CLIENT_ADDRESS,
    outcome: 'success' as const,
  },
];

/** He said yes to sharing his usage with Apple when he bought on his iPhone. */
export const memberPreferences = {
  appleConsumptionConsent: true,
  appleConsumptionConsentChangedAt: '2026-11-20T08:35:02.417Z',
  expiryReminders: true,
  locale: 'en' as const,
};
