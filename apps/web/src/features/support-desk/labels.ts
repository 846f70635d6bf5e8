import type { MemberMatch, OperatorRole, PurchaseProvider, TimelineKind } from '@kegel/contract';
import type { MessageKey } from '@kegel/contract/i18n/catalogs';

import type { DeskTexts } from './text';

type MemberMatchKind = MemberMatch['matchedBy'];

// The server's codes the desk shows as words (a role, what a search matched, a timeline item's
// kind), in the operator's language. Spelled as tables so that a code added to the contract fails
// the type check until it has its words.

const ROLE_KEYS: Record<OperatorRole, MessageKey<'desk'>> = {
  support: 'roleSupport',
  admin: 'roleAdmin',
};

const MATCH_KIND_KEYS: Record<MemberMatchKind, MessageKey<'desk'>> = {
  email: 'matchedByEmail',
  'account id': 'matchedByAccountId',
  'stripe customer': 'matchedByStripeCustomer',
  'checkout session': 'matchedByCheckoutSession',
  'payment intent': 'matchedByPaymentIntent',
  'original transaction': 'matchedByOriginalTransaction',
  'order id': 'matchedByOrderId',
};

const TIMELINE_KIND_KEYS: Record<TimelineKind, MessageKey<'desk'>> = {
  account: 'kindAccount',
  purchase: 'kindPurchase',
  'app store notification': 'kindAppStoreNotification',
  refund: 'kindRefund',
  dispute: 'kindDispute',
  ledger: 'kindLedger',
  'sign-in': 'kindSignIn',
  'sign-in failure': 'kindSignInFailure',
  'email change': 'kindEmailChange',
  'password change': 'kindPasswordChange',
  mail: 'kindMail',
  'operator action': 'kindOperatorAction',
  note: 'kindNote',
};

/** An operator's role; a role the desk does not know (an audit row's, stored) as it is. */
export function roleName(text: DeskTexts, role: string): string {
  const key = ROLE_KEYS[role as OperatorRole] as MessageKey<'desk'> | undefined;
  return key ? text(key) : role;
}

export function matchKindName(text: DeskTexts, kind: MemberMatchKind): string {
  return text(MATCH_KIND_KEYS[kind]);
}

export function timelineKindName(text: DeskTexts, kind: TimelineKind): string {
  return text(TIMELINE_KIND_KEYS[kind]);
}

/** Where a purchase comes from: Stripe and Apple by their names, the support team's grants in words. */
export function providerName(text: DeskTexts, provider: PurchaseProvider): string {
  return provider === 'Support' ? text('providerSupport') : provider;
}
