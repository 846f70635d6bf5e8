// Mails the desk sends again for a member (ADR 020), through the auth module's own functions:
// the same template and the same code rules as when he asks himself (a fresh code, the older
// ones dead). The audit row names the mail, never its code.
import { type ResendMailRequest, supportDeskMessages } from '@kegel/contract';

import { AppError } from '../../errors';
import { usersRepo } from '../users';
import { requireMember } from './find-member';
import { auditActorOf, type DeskAction, type SupportDeskDependencies } from './rules';

export async function resendMemberMail(
  deps: SupportDeskDependencies,
  { operator, origin }: DeskAction,
  memberId: string,
  { mail }: ResendMailRequest,
): Promise<string> {
  await deps.db.transaction().execute(async (transaction) => {
    await usersRepo.lockUser(transaction, memberId);
    const member = await requireMember(transaction, memberId);
    // The product proves an address by a link mailed to it and used: for an account made with a
    // password that is the reset link (using it marks the address verified), so "verification"
    // sends that same mail, and only while the address is not proved yet.
    if (mail === 'verification' && member.emailVerifiedAt) {
      throw new AppError(409, supportDeskMessages.mailNotNeeded);
    }
    await deps.auth.mailPasswordReset(transaction, member);
    await deps.auditTrail.record(
      transaction,
      { actor: auditActorOf(operator), origin },
      {
        action: 'mail.resend',
        target: { userId: memberId, email: member.email },
        changes: { before: null, after: { mail } },
      },
    );
  });
  deps.countAction('mail.resend');
  return mail === 'verification'
    ? 'Verification mail sent to the member'
    : 'Password reset mail sent to the member';
}
