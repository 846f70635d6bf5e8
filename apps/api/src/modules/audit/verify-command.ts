// `npm run audit:verify`: reads the whole audit trail and checks its chain (ADR 020). Names every
// row that was changed, removed or slipped in; prints the head hash, to be kept elsewhere (a
// removal of the newest rows shows only against a head hash noted before).
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import type { AuditTrail } from './audit-trail';

export interface CommandOutput {
  out(line: string): void;
  error(line: string): void;
}

/** Answers the process's exit code: 0 when the chain holds, 1 otherwise. */
export async function runAuditVerification({
  db,
  trail,
  output,
}: {
  db: Kysely<Database>;
  trail: AuditTrail;
  output: CommandOutput;
}): Promise<number> {
  const report = await trail.verify(db);
  for (const { sequence, id, problem } of report.problems) {
    output.error(`audit row ${sequence} (${id}) ${problem}`);
  }
  if (report.problems.length > 0) {
    output.error(
      `The audit trail does NOT hold: ${report.problems.length} problem(s) in ${report.rows} rows.`,
    );
    return 1;
  }
  output.out(`The audit trail holds: ${report.rows} rows, head hash ${report.headHash}.`);
  return 0;
}
