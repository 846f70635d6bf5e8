// The embedded database's Kysely: PGlite opened on DATA_DIR (initdb first, in a child process, if
// the directory holds none). Loaded by database.ts only when the configuration names PGlite: a
// server on PostgreSQL does not carry PGlite's JavaScript (about 1 MB of heap).
import { PGlite } from '@electric-sql/pglite';
import { CamelCasePlugin, Kysely } from 'kysely';

import { PGliteDialect } from './pglite-dialect';
import { holdsPgliteDatabase, initialisePgliteDirectory, PGLITE_OPTIONS } from './pglite-init';
import type { Database } from './schema';

export async function openPgliteDatabase(dataDir: string): Promise<Kysely<Database>> {
  // initdb apart: in this process it would leave the server some 430 MB larger for good
  // (pglite-init.ts says why).
  if (!holdsPgliteDatabase(dataDir)) await initialisePgliteDirectory(dataDir);
  // A smaller buffer pool than PostgreSQL's default (pglite-init.ts says why).
  const pglite = await PGlite.create(dataDir, PGLITE_OPTIONS);
  return new Kysely<Database>({
    dialect: new PGliteDialect(pglite),
    plugins: [new CamelCasePlugin()],
  });
}
