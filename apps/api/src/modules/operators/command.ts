// `npm run operator -- grant <email> --role support|admin`, `… revoke <email>`, `… list`: the only
// way to make or unmake an operator (ADR 020). Prints what it did; each change is audited.
import { OPERATOR_ROLES, type OperatorRole } from '@kegel/contract';
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import type { AuditTrail, CommandOutput } from '../audit';
import { listOperators } from './repo';
import { grantRole, revokeRole, UnknownAccountError } from './roles';

export const OPERATOR_USAGE = `Usage:
  npm run operator -- grant <email> --role support|admin
  npm run operator -- revoke <email>
  npm run operator -- list`;

/** Runs one command; answers the process's exit code. */
export async function runOperatorCommand(
  args: readonly string[],
  { db, trail, output }: { db: Kysely<Database>; trail: AuditTrail; output: CommandOutput },
): Promise<number> {
  const [command, email, ...options] = args;
  try {
    if (command === 'list' && email === undefined) {
      const operators = await listOperators(db);
      if (operators.length === 0) output.out('No operators.');
      for (const operator of operators) {
        output.out(
          `${operator.email}  ${operator.role}  since ${operator.grantedAt.toISOString()}`,
        );
      }
      return 0;
    }
    if (command === 'grant' && email) {
      const role = roleOption(options);
      if (!role) {
        output.error(`grant needs --role ${OPERATOR_ROLES.join('|')}\n${OPERATOR_USAGE}`);
        return 2;
      }
      const change = await grantRole(db, trail, email, role);
      output.out(
        change.before === role
          ? `${change.email} already had the role ${role} (audited again).`
          : `${change.email} is now ${role} (was: ${change.before ?? 'no role'}).`,
      );
      return 0;
    }
    if (command === 'revoke' && email && options.length === 0) {
      const change = await revokeRole(db, trail, email);
      output.out(
        change.before
          ? `${change.email} is no longer an operator (was: ${change.before}).`
          : `${change.email} had no operator role: nothing changed.`,
      );
      return 0;
    }
    output.error(OPERATOR_USAGE);
    return 2;
  } catch (error) {
    if (error instanceof UnknownAccountError) {
      output.error(`${error.message}: the person signs up first, then is granted a role.`);
      return 1;
    }
    throw error;
  }
}

function roleOption(options: readonly string[]): OperatorRole | undefined {
  let value: string | undefined;
  if (options.length === 2 && options[0] === '--role') value = options[1];
  else if (options.length === 1 && options[0]?.startsWith('--role=')) value = options[0].slice(7);
  return OPERATOR_ROLES.find((role) => role === value);
}
