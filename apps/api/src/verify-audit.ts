// `npm run audit:verify`: reads the whole audit trail and checks its hash chain (ADR 020). Exits 1
// naming every row that was changed, removed or slipped in; prints the head hash to keep elsewhere.
import { ConfigError, loadConfig } from './config';
import { DataDirLockedError } from './db/data-dir-lock';
import { openDatabase } from './db/database';
import { createAuditTrail } from './modules/audit';
import { deriveKey } from './security/keys';

async function run(): Promise<number> {
  const config = loadConfig();
  const database = await openDatabase(config.database);
  try {
    const trail = createAuditTrail({ emailKey: deriveKey(config.tokenSecret, 'audit-email') });
    const report = await trail.verify(database.db);
    for (const { sequence, id, problem } of report.problems) {
      process.stderr.write(`audit row ${sequence} (${id}) ${problem}\n`);
    }
    if (report.problems.length > 0) {
      process.stderr.write(
        `The audit trail does NOT hold: ${report.problems.length} problem(s) in ${report.rows} rows.\n`,
      );
      return 1;
    }
    process.stdout.write(
      `The audit trail holds: ${report.rows} rows, head hash ${report.headHash}.\n`,
    );
    return 0;
  } finally {
    await database.close();
  }
}

run()
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
    else if (error instanceof DataDirLockedError)
      process.stderr.write(
        `${error.message}\nThe embedded database (PGlite) serves one process: stop the server, verify, start it again.\n`,
      );
    else
      process.stderr.write(
        `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    process.exit(1);
  });
