// One run of the session-pruning job (apps/api/src/modules/auth/session-pruning.ts) against
// DATABASE_URL, as the server runs it, for scale.mjs: prints what the job logged (rows deleted,
// batches, the longest batch) as one line of JSON. Run with tsx: `node --import tsx …`.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(path.join(root, 'apps/api/package.json'));
const pg = require('pg');
const { CamelCasePlugin, Kysely, PostgresDialect } = require('kysely');
const { createSessionPruning } = await import(
  path.join(root, 'apps/api/src/modules/auth/session-pruning.ts')
);

const db = new Kysely({
  dialect: new PostgresDialect({
    pool: new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 }),
  }),
  plugins: [new CamelCasePlugin()],
});
let report = { sessions: 0, signInEvents: 0, batches: 0, longestBatchMs: 0 };
const log = {
  info: (details) => {
    report = details;
  },
  error: (details, message) => console.error(message, details),
};
const deleted = await createSessionPruning({ db, log }).pruneOnce();
await db.destroy();
console.log(JSON.stringify({ deleted, ...report }));
