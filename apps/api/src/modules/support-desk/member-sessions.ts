// "Sign out everywhere" for a member (ADR 020): every session of his ends, at once (each signed-in
// call checks its session), and he is told why.
import { endEverySession } from '../auth';
import { mailLocaleOf } from '../../mail/mail-locale';
import { signedOutBySupportEmail } from '../../mail/support-desk-templates';
import { usersRepo } from '../users';
import { requireMember } from './find-member';
import { auditActorOf, type DeskAction, type SupportDeskDependencies } from './rules';

export async function signMemberOutEverywhere(
  deps: SupportDeskDependencies,
  { operator, origin }: DeskAction,
  memberId: string,
  reason: string,
): Promise<{ ended: number }> {
  const ended = await deps.db.transaction().execute(async (transaction) => {
    await usersRepo.lockUser(transaction, memberId);
    const member = await requireMember(transaction, memberId);
    const count = await endEverySession(transaction, memberId, 'support desk');
    await deps.auditTrail.record(
      transaction,
      { actor: auditActorOf(operator), origin },
      {
        action: 'sessions.revoke',
        target: { userId: memberId, email: member.email },
        reason,
        changes: { before: { openSessions: count }, after: { openSessions: 0 } },
      },
    );
    await deps.mail.enqueue(transaction, {
      to: member.email,
      userId: memberId,
      template: 'support-signed-out',
      content: signedOutBySupportEmail({
        reason,
        signInUrl: `${deps.publicUrl}/auth/login`,
        supportEmail: deps.supportEmail,
        locale: mailLocaleOf(member),
      }),
    });
    return count;
  });
  deps.countAction('sessions.revoke');
  return { ended };
}
