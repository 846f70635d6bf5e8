// Granting and taking operator roles: only from the server's command line (`npm run operator`),
// never through the API (ADR 020). Each change is written to the audit trail in its transaction.
import { userInfo, hostname } from 'node:os';

import type { OperatorRole } from '@kegel/contract';
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import type { AuditActor, AuditTrail } from '../audit';
import { usersRepo } from '../users';
import * as repo from './repo';

export interface RoleChange {
  email: string;
  before: OperatorRole | null;
  after: OperatorRole | null;
}

export class UnknownAccountError extends Error {
  constructor(email: string) {
    super(`No account has the email ${email}`);
    this.name = 'UnknownAccountError';
  }
}

/** The command line as the audit trail names it: the system user on this machine. */
export function commandLineActor(): AuditActor {
  return { id: null, email: `${userInfo().username}@${hostname()}`, role: 'command line' };
}

const COMMAND_LINE_ORIGIN = { requestId: null, clientAddress: null };

export async function grantRole(
  db: Kysely<Database>,
  trail: AuditTrail,
  email: string,
  role: OperatorRole,
  actor: AuditActor = commandLineActor(),
): Promise<RoleChange> {
  return db.transaction().execute(async (transaction) => {
    const account = await usersRepo.findUserByEmail(transaction, email);
    if (!account) throw new UnknownAccountError(email);
    const before = await repo.setRole(transaction, account.id, role);
    await trail.record(
      transaction,
      { actor, origin: COMMAND_LINE_ORIGIN },
      {
        action: 'operator.grant-role',
        target: { userId: account.id, email: account.email },
        changes: { before: { role: before }, after: { role } },
      },
    );
    return { email: account.email, before, after: role };
  });
}

export async function revokeRole(
  db: Kysely<Database>,
  trail: AuditTrail,
  email: string,
  actor: AuditActor = commandLineActor(),
): Promise<RoleChange> {
  return db.transaction().execute(async (transaction) => {
    const account = await usersRepo.findUserByEmail(transaction, email);
    if (!account) throw new UnknownAccountError(email);
    const before = await repo.removeRole(transaction, account.id);
    if (before) {
      await trail.record(
        transaction,
        { actor, origin: COMMAND_LINE_ORIGIN },
        {
          action: 'operator.revoke-role',
          target: { userId: account.id, email: account.email },
          changes: { before: { role: before }, after: { role: null } },
        },
      );
    }
    return { email: account.email, before, after: null };
  });
}
