// `npm run operator -- …`: see modules/operators/command.ts. Runs against the database the server
// uses (with the embedded one, while the server is stopped: PGlite serves one process).
import { ConfigError, loadConfig } from './config';
import { DataDirLockedError } from './db/data-dir-lock';
import { openDatabase } from './db/database';
import { createAuditTrail } from './modules/audit';
import { runOperatorCommand } from './modules/operators/command';
import { deriveKey } from './security/keys';

async function run(args: string[]): Promise<number> {
  const config = loadConfig();
  const database = await openDatabase(config.database);
  try {
    return await runOperatorCommand(args, {
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

run(process.argv.slice(2).filter((argument) => argument !== '--'))
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
    else if (error instanceof DataDirLockedError)
      process.stderr.write(
        `${error.message}\nThe embedded database (PGlite) serves one process: stop the server, run the command, start it again.\n`,
      );
    else
      process.stderr.write(
        `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    process.exit(1);
  });
