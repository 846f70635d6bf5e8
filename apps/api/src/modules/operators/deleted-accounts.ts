// An operator who deletes his own account takes his role with him: the row would go with the
// account anyway (on delete cascade), but every end of a role is in the audit trail (ADR 020),
// written in the deletion's transaction before his emails there become a pseudonym.
import type { Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import type { Caller } from '../../security/client-address';
import type { AuditTrail } from '../audit';
import * as repo from './repo';

export async function endRoleOfDeletedAccount(
  transaction: Transaction<Database>,
  trail: Pick<AuditTrail, 'record'>,
  account: { id: string; email: string },
  caller: Caller,
): Promise<void> {
  const role = await repo.removeRole(transaction, account.id);
  if (!role) return;
  await trail.record(
    transaction,
    {
      actor: { id: account.id, email: account.email, role },
      origin: { requestId: null, clientAddress: caller.clientAddress },
    },
    {
      action: 'operator.revoke-role',
      target: { userId: account.id, email: account.email },
      reason: 'account deleted',
      changes: { before: { role }, after: { role: null } },
    },
  );
}
