// Premium days granted by the support desk (ADR 020): each grant is a purchase of provider
// 'Support' (the member reads it, with its reason, in his Purchase History), an operator_grants
// row holding its idempotency key, and a ledger grant; removing it is a ledger revocation. The
// member's row is locked first, so a repeated request (or ten at once) finds the first one's key.
import { randomUUID } from 'node:crypto';

import {
  type Grant,
  type GrantDaysRequest,
  SUPPORT_MAX_GRANT_DAYS,
  supportDeskMessages,
} from '@kegel/contract';
import type { Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import { AppError } from '../../errors';
import {
  premiumDaysGrantedEmail,
  premiumGrantRemovedEmail,
} from '../../mail/support-desk-templates';
import { mailLocaleOf } from '../../mail/mail-locale';
import { withoutEmail } from '../audit';
import { requireAdmin } from '../operators';
import { ledger, purchasesRepo, supportGrantName } from '../premium';
import { usersRepo } from '../users';
import { requireMember } from './find-member';
import * as grantsRepo from './grants-repo';
import {
  auditActorOf,
  type DeskAction,
  refuseOwnAccount,
  type SupportDeskDependencies,
} from './rules';

const iso = (moment: Date | null) => moment?.toISOString() ?? null;

export async function grantPremiumDays(
  deps: SupportDeskDependencies,
  action: DeskAction,
  memberId: string,
  request: GrantDaysRequest,
): Promise<Grant> {
  refuseOwnAccount(action.operator, memberId);
  if (request.days > SUPPORT_MAX_GRANT_DAYS && action.operator.role !== 'admin') {
    throw new AppError(403, supportDeskMessages.supportGrantLimit);
  }
  const outcome = await deps.db.transaction().execute(async (transaction) => {
    // Before looking for the key: a second request with it waits here until the first commits.
    await usersRepo.lockUser(transaction, memberId);
    const member = await requireMember(transaction, memberId);
    // What the member's Purchase History keeps after his account is gone names no address.
    const reason = withoutEmail(request.reason, member.email);
    const earlier = await grantsRepo.findGrantByKey(transaction, memberId, request.idempotencyKey);
    if (!earlier) {
      const grant = await writeGrant(deps, transaction, action, member, { ...request, reason });
      return { grant, isNew: true };
    }
    if (earlier.days !== request.days || earlier.reason !== reason) {
      throw new AppError(409, supportDeskMessages.idempotencyKeyReused);
    }
    const grant: Grant = {
      id: earlier.id,
      days: earlier.days,
      reason: earlier.reason,
      grantedAt: earlier.grantedAt.toISOString(),
      name: earlier.planName,
      subscriptionEndDate: iso(member.subscriptionEndDate),
    };
    return { grant, isNew: false };
  });
  if (outcome.isNew) deps.countAction('grant.add');
  return outcome.grant;
}

/** A new grant: its purchase, its row, its ledger entry, its audit row and the member's mail. */
async function writeGrant(
  deps: SupportDeskDependencies,
  transaction: Transaction<Database>,
  { operator, origin }: DeskAction,
  member: { id: string; email: string; subscriptionEndDate: Date | null; locale: string | null },
  request: GrantDaysRequest,
): Promise<Grant> {
  const { days, reason } = request;
  const grantedAt = new Date();
  const grantId = randomUUID();
  const name = supportGrantName(days, reason);
  const granted = await ledger.addPass(
    transaction,
    { userId: member.id, source: 'support', days, reason, grantedAt },
    (period) =>
      purchasesRepo.insertPurchase(transaction, {
        userId: member.id,
        planId: null,
        planName: name,
        provider: 'Support',
        providerPaymentId: grantId,
        amountCents: 0,
        currency: 'usd',
        days,
        ...period,
      }),
  );
  if (!granted) throw new Error(`the grant ${grantId} has a purchase already`);
  const { purchaseId, endsAt } = granted;
  await grantsRepo.insertGrant(transaction, {
    id: grantId,
    userId: member.id,
    purchaseId,
    idempotencyKey: request.idempotencyKey,
    days,
    reason,
    grantedBy: operator.userId,
    grantedAt,
  });
  await deps.auditTrail.record(
    transaction,
    { actor: auditActorOf(operator), origin },
    {
      action: 'grant.add',
      target: { userId: member.id, email: member.email },
      reason,
      changes: {
        before: { subscriptionEndDate: iso(member.subscriptionEndDate) },
        after: { subscriptionEndDate: iso(endsAt), grantId, days },
      },
    },
  );
  await deps.mail.enqueue(transaction, {
    to: member.email,
    userId: member.id,
    template: 'support-grant',
    content: premiumDaysGrantedEmail({
      days,
      reason,
      endsAt,
      dashboardUrl: `${deps.publicUrl}/dashboard`,
      supportEmail: deps.supportEmail,
      locale: mailLocaleOf(member),
    }),
  });
  return {
    id: grantId,
    days,
    reason,
    grantedAt: grantedAt.toISOString(),
    name,
    subscriptionEndDate: iso(endsAt),
  };
}

/** Admin only: the grant's days go out through the ledger (later passes shift back). */
export async function removePremiumGrant(
  deps: SupportDeskDependencies,
  { operator, origin }: DeskAction,
  grantId: string,
  reason: string,
): Promise<{ subscriptionEndDate: string | null }> {
  requireAdmin(operator);
  const found = await grantsRepo.findGrant(deps.db, grantId);
  if (!found) throw new AppError(404, supportDeskMessages.grantNotFound);
  refuseOwnAccount(operator, found.userId);
  const answer = await deps.db.transaction().execute(async (transaction) => {
    await usersRepo.lockUser(transaction, found.userId);
    // Read again under the member's lock: a removal may have committed since.
    const grant = await grantsRepo.findGrant(transaction, grantId);
    if (!grant) throw new AppError(404, supportDeskMessages.grantNotFound);
    if (grant.removedAt) throw new AppError(409, supportDeskMessages.grantAlreadyRemoved);
    const member = await requireMember(transaction, grant.userId);
    const at = new Date();
    const removed = await ledger.removeSupportGrant(transaction, {
      userId: grant.userId,
      purchaseId: grant.purchaseId,
      reason: 'grant removed',
      at,
    });
    if (!removed) throw new AppError(409, supportDeskMessages.grantAlreadyRemoved);
    await grantsRepo.markGrantRemoved(transaction, grantId, { at, by: operator.userId, reason });
    await deps.auditTrail.record(
      transaction,
      { actor: auditActorOf(operator), origin },
      {
        action: 'grant.remove',
        target: { userId: grant.userId, email: member.email },
        reason,
        changes: {
          before: { subscriptionEndDate: iso(member.subscriptionEndDate), grantId },
          after: { subscriptionEndDate: iso(removed.endsAt) },
        },
      },
    );
    await deps.mail.enqueue(transaction, {
      to: member.email,
      userId: grant.userId,
      template: 'support-grant-removed',
      content: premiumGrantRemovedEmail({
        days: grant.days,
        reason,
        endsAt: removed.endsAt,
        dashboardUrl: `${deps.publicUrl}/dashboard`,
        supportEmail: deps.supportEmail,
        locale: mailLocaleOf(member),
      }),
    });
    return { subscriptionEndDate: iso(removed.endsAt) };
  });
  deps.countAction('grant.remove');
  return answer;
}
