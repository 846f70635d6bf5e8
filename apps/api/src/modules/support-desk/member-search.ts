// Finding a member by what he quotes in his mail. Searching is not audited: only opening a
// member's page is (member-story.ts).
import type { MemberMatch } from '@kegel/contract';

import * as memberRepo from './member-repo';
import type { SupportDeskDependencies } from './rules';

type MatchKind = MemberMatch['matchedBy'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Apple's order ids (on the member's receipt mail): 10 to 12 upper-case letters and digits. */
const APPLE_ORDER_ID = /^[A-Z0-9]{10,12}$/;
const DIGITS = /^\d+$/;

/**
 * What a term is taken for, from its look alone (each kind has a shape no other has):
 * - a UUID: an account id;
 * - `cus_…`: a Stripe customer; `cs_…`: a Checkout Session; `pi_…`: a PaymentIntent;
 * - only digits: an App Store original transaction id;
 * - 10 to 12 upper-case letters and digits, not all digits: an Apple order id, looked up through
 *   the App Store Server API;
 * - anything else: the start of an email, in any case.
 */
export function kindOfTerm(term: string): MatchKind {
  if (UUID.test(term)) return 'account id';
  if (term.startsWith('cus_')) return 'stripe customer';
  if (term.startsWith('cs_')) return 'checkout session';
  if (term.startsWith('pi_')) return 'payment intent';
  if (DIGITS.test(term)) return 'original transaction';
  if (APPLE_ORDER_ID.test(term)) return 'order id';
  return 'email';
}

/** At most 20 accounts, ordered by email; deleted accounts never match. */
export async function searchMembers(
  deps: Pick<SupportDeskDependencies, 'db' | 'lookUpAppleOrder'>,
  query: string,
): Promise<MemberMatch[]> {
  const term = query.trim();
  const kind = kindOfTerm(term);
  const rows = await findAccounts(deps, kind, term);
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    createdAt: row.createdAt.toISOString(),
    subscriptionEndDate: row.subscriptionEndDate?.toISOString() ?? null,
    matchedBy: kind,
  }));
}

async function findAccounts(
  { db, lookUpAppleOrder }: Pick<SupportDeskDependencies, 'db' | 'lookUpAppleOrder'>,
  kind: MatchKind,
  term: string,
) {
  switch (kind) {
    case 'account id':
      return memberRepo.findById(db, term.toLowerCase());
    case 'stripe customer':
      return memberRepo.findByStripeCustomer(db, term);
    case 'checkout session':
      return memberRepo.findByCheckoutSession(db, term);
    case 'payment intent':
      return memberRepo.findByPaymentIntent(db, term);
    case 'original transaction':
      return memberRepo.findByOriginalTransactions(db, [term]);
    case 'order id': {
      const transactions = await lookUpAppleOrder(term);
      if (transactions.length === 0) return [];
      return memberRepo.findByOriginalTransactions(
        db,
        transactions.map((transaction) => transaction.originalTransactionId),
      );
    }
    case 'email':
      return memberRepo.findByEmailPrefix(db, term);
  }
}
