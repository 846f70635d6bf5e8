// Notes on a member's story (ADR 020): an audit row whose reason is the note, so a note is never
// edited or removed, and shows in the trail with who wrote it. The member is not mailed.
import { requireMember } from './find-member';
import { auditActorOf, type DeskAction, type SupportDeskDependencies } from './rules';

export async function addMemberNote(
  deps: SupportDeskDependencies,
  { operator, origin }: DeskAction,
  memberId: string,
  text: string,
): Promise<{ id: string; at: string }> {
  const note = await deps.db.transaction().execute(async (transaction) => {
    const member = await requireMember(transaction, memberId);
    return deps.auditTrail.record(
      transaction,
      { actor: auditActorOf(operator), origin },
      { action: 'note.add', target: { userId: memberId, email: member.email }, reason: text },
    );
  });
  deps.countAction('note.add');
  return { id: note.id, at: note.occurredAt.toISOString() };
}
