// `npm run generate:api-clients --workspace @kegel/api`: rewrites the committed API clients
// (test/generated-client/) from the document the server serves. No network and no running server:
// the server is built in this process, as the tests build it, over a throwaway PGlite directory,
// and asked for GET /api/openapi.json. The freshness test (test/generated-client-freshness.test.ts)
// fails until this has been run after the document changed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  type ApiDocument,
  GENERATED_CLIENT_DIR,
  generateApiClients,
  readServedDocument,
} from '../test/support/api-clients';
import { buildTestApp } from '../test/support/test-app';

async function readDocumentFromFreshServer(): Promise<ApiDocument> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kegel-api-document-'));
  try {
    // The tests' configuration, so that this document is the one the freshness test reads.
    const app = await buildTestApp({ env: { DATA_DIR: dataDir }, dataDir, drop: async () => {} });
    try {
      return await readServedDocument(app);
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await generateApiClients(await readDocumentFromFreshServer(), GENERATED_CLIENT_DIR);
console.log(`API clients written to ${path.relative(process.cwd(), GENERATED_CLIENT_DIR)}`);
