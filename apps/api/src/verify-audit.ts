// `npm run audit:verify`: see modules/audit/verify-command.ts.
import { ConfigError, loadConfig } from './config';
import { DataDirLockedError } from './db/data-dir-lock';
import { openDatabase } from './db/database';
import { createAuditTrail } from './modules/audit';
import { runAuditVerification } from './modules/audit/verify-command';
import { deriveKey } from './security/keys';

async function run(): Promise<number> {
  const config = loadConfig();
  const database = await openDatabase(config.database);
  try {
    return await runAuditVerification({
      db: database.db,
      trail: createAuditTrail({ emailKey: deriveKey(config.tokenSecret, 'audit-email') }),
      output: {
        out: (line) => process.stdout.write(`${line}\n`),
        error: (line) => process.stderr.write(`${line}\n`),
      },
    });
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
