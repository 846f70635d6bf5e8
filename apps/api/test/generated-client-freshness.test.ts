// The committed clients under generated-client/ are what a mobile team would generate from the
// document today: this regenerates them from the served document and fails, naming the command
// that rewrites them, when they differ. It also holds both generators to silence: a warning means
// the document says something a client generator cannot follow.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';

import { endpoints } from '@kegel/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import * as sdk from './generated-client/hey-api/sdk.gen';
import {
  GENERATED_CLIENT_DIR,
  generateApiClients,
  readServedDocument,
  REGENERATE_COMMAND,
} from './support/api-clients';
import { buildTestApp } from './support/test-app';
import { testDatabaseKinds } from './support/test-databases';

const kind = testDatabaseKinds[0]!;

describe('the committed API clients', () => {
  const freshDir = mkdtempSync(path.join(tmpdir(), 'kegel-api-clients-'));
  let generatorWarnings: string[] = [];

  beforeAll(async () => {
    const database = await kind.create();
    const app = await buildTestApp(database);
    try {
      const document = await readServedDocument(app);
      generatorWarnings = await warningsOf(() => generateApiClients(document, freshDir));
    } finally {
      await app.close();
      await database.drop();
    }
  });
  afterAll(() => rmSync(freshDir, { recursive: true, force: true }));

  it('are what @hey-api/openapi-ts and openapi-typescript generate from the served document', () => {
    const committed = filesUnder(GENERATED_CLIENT_DIR);
    const fresh = filesUnder(freshDir);
    const differences = [...new Set([...committed.keys(), ...fresh.keys()])]
      .sort()
      .flatMap((file) => {
        if (!committed.has(file)) return [`not committed: ${file}`];
        if (!fresh.has(file)) return [`no longer generated: ${file}`];
        return committed.get(file) === fresh.get(file) ? [] : [`stale: ${file}`];
      });
    expect(fresh.size).toBeGreaterThan(2);
    expect(
      differences,
      `apps/api/test/generated-client/ is not what the served document generates: run \`${REGENERATE_COMMAND}\` and commit the result`,
    ).toEqual([]);
  });

  it('draw no warning from either generator', () => {
    expect(generatorWarnings).toEqual([]);
  });

  it("name an SDK function after each of the contract's calls (its operationId)", () => {
    // Not the other way round: a route outside the contract (the unsubscribe link opened from a
    // mail) names its own operation.
    const unnamed = Object.keys(endpoints).filter((call) => !Object.hasOwn(sdk, call));
    expect(Object.keys(endpoints).length).toBeGreaterThan(20);
    expect(unnamed).toEqual([]);
  });
});

/** Every file under `directory`, by its path relative to it, with its text. */
function filesUnder(directory: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.set(path.relative(directory, file), readFileSync(file, 'utf8'));
  }
  return files;
}

/**
 * What `generate` writes as warnings and errors (both generators report problems with the
 * document there); their progress lines on standard output are left out of the test's output.
 */
async function warningsOf(generate: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const record = (...parts: unknown[]) => {
    lines.push(stripVTControlCharacters(parts.map(String).join(' ')));
  };
  const spies = [
    vi.spyOn(console, 'warn').mockImplementation(record),
    vi.spyOn(console, 'error').mockImplementation(record),
    vi.spyOn(console, 'log').mockImplementation(() => {}),
  ];
  try {
    await generate();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return lines;
}
