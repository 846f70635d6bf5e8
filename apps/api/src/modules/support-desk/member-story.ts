// A member's page on the support desk: his story (profile, premium, purchases, App Store
// subscriptions) and "view as the member" (what his own pages answer him). Opening either is
// audited, in the transaction of the read, so no page is seen without its row.
import {
  isRunningPurchase,
  type MemberStory,
  type MemberView,
  supportDeskMessages,
} from '@kegel/contract';
import type { Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import { AppError } from '../../errors';
import { listPurchaseItems } from '../payments';
import { createUsersService } from '../users';
import * as memberRepo from './member-repo';
import { auditActorOf, type DeskAction, type SupportDeskDependencies } from './rules';

const iso = (value: Date | null): string | null => value?.toISOString() ?? null;

type StoryDependencies = Pick<SupportDeskDependencies, 'db' | 'auditTrail'>;

/** The member's story, audited `member.view`; 404 when there is no such account. */
export function readMemberStory(
  deps: StoryDependencies,
  action: DeskAction,
  memberId: string,
  now = Date.now(),
): Promise<MemberStory> {
  return deps.db.transaction().execute(async (transaction) => {
    const profile = await memberRepo.findMemberProfile(transaction, memberId);
    if (!profile) throw new AppError(404, supportDeskMessages.memberNotFound);
    const [identities, purchases, appStoreSubscriptions, items] = await Promise.all([
      memberRepo.listIdentities(transaction, memberId),
      memberRepo.listMemberPurchases(transaction, memberId),
      memberRepo.listAppStoreSubscriptions(transaction, memberId),
      // The member's own Active Subscriptions table, as his Purchase History computes it.
      listPurchaseItems(transaction, memberId),
    ]);
    await recordMemberRead(deps, transaction, action, 'member.view', profile);
    // Where the end comes from: of the purchases that count, the one whose period ends last.
    const source = purchases
      .filter((purchase) => purchase.revokedAt === null)
      .reduce<(typeof purchases)[number] | undefined>(
        (latest, purchase) =>
          !latest || purchase.expiresAt.getTime() > latest.expiresAt.getTime() ? purchase : latest,
        undefined,
      );
    return {
      profile: {
        id: profile.id,
        email: profile.email,
        createdAt: profile.createdAt.toISOString(),
        emailVerifiedAt: iso(profile.emailVerifiedAt),
        hasPassword: Boolean(profile.hasPassword),
        identities,
        twoStepEnabled: Boolean(profile.twoStepEnabled),
        passkeys: Number(profile.passkeys),
        locale: profile.locale,
        stripeCustomerId: profile.stripeCustomerId,
        operatorRole: profile.operatorRole,
      },
      premium: {
        endsAt: iso(profile.subscriptionEndDate),
        source: source?.provider ?? null,
        sourcePurchaseId: source?.id ?? null,
      },
      activeSubscriptions: items.filter((item) => isRunningPurchase(item, now)),
      purchases: purchases.map((purchase) => {
        const refundedCents = Number(purchase.refundedCents);
        return {
          id: purchase.id,
          name: purchase.planName,
          provider: purchase.provider,
          amountCents: purchase.amountCents,
          currency: purchase.currency,
          refundedCents,
          createdAt: purchase.createdAt.toISOString(),
          startsAt: purchase.startsAt.toISOString(),
          expiresAt: purchase.expiresAt.toISOString(),
          revokedAt: iso(purchase.revokedAt),
          revokedReason: purchase.revokedReason,
          providerPaymentId: purchase.providerPaymentId,
          paymentIntentId: purchase.paymentIntentId,
          refundable:
            purchase.provider === 'Stripe' &&
            purchase.paymentIntentId !== null &&
            refundedCents < purchase.amountCents,
          grantId: purchase.grantId,
        };
      }),
      appStoreSubscriptions,
    };
  });
}

/**
 * What the member's dashboard and Purchase History answer him (`GET /users/profile`,
 * `GET /users/subscriptions/personal`), from the same functions; audited `member.view-as`.
 */
export function viewAsMember(
  deps: StoryDependencies,
  action: DeskAction,
  memberId: string,
): Promise<MemberView> {
  return deps.db.transaction().execute(async (transaction) => {
    const account = await memberRepo.findMemberAccount(transaction, memberId);
    if (!account) throw new AppError(404, supportDeskMessages.memberNotFound);
    const purchases = await listPurchaseItems(transaction, memberId);
    await recordMemberRead(deps, transaction, action, 'member.view-as', account);
    const profile = createUsersService({ db: deps.db }).readProfile({
      ...account,
      hasPassword: Boolean(account.hasPassword),
      twoStepEnabled: Boolean(account.twoStepEnabled),
    });
    return { profile, purchases };
  });
}

/** One audit row of an operator reading a member's page, in the read's transaction. */
export function recordMemberRead(
  deps: Pick<SupportDeskDependencies, 'auditTrail'>,
  transaction: Transaction<Database>,
  { operator, origin }: DeskAction,
  auditAction: 'member.view' | 'member.timeline' | 'member.view-as',
  member: { id: string; email: string },
) {
  return deps.auditTrail.record(
    transaction,
    { actor: auditActorOf(operator), origin },
    { action: auditAction, target: { userId: member.id, email: member.email } },
  );
}
