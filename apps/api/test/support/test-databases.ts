import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import pg from 'pg';

import { testEnv } from './test-env';

/**
 * The databases integration tests run on: PGlite always, PostgreSQL when TEST_DATABASE_URL is set.
 * Each `create()` is a brand-new, empty database (a fresh PGlite directory, or a fresh database
 * on the server), so runs and test files never see each other's rows.
 */
export interface TestDatabase {
  /** Environment for `loadConfig`: DATA_DIR always, DATABASE_URL for PostgreSQL. */
  env: Record<string, string>;
  dataDir: string;
  drop(): Promise<void>;
}

export interface TestDatabaseKind {
  name: 'PGlite' | 'PostgreSQL';
  create(): Promise<TestDatabase>;
}

function createDataDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'kegel-test-'));
}

const pglite: TestDatabaseKind = {
  name: 'PGlite',
  async create() {
    const dataDir = createDataDir();
    return {
      env: { DATA_DIR: dataDir },
      dataDir,
      async drop() {
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
};

function postgres(serverUrl: string): TestDatabaseKind {
  return {
    name: 'PostgreSQL',
    async create() {
      const databaseName = `kegel_test_${randomBytes(6).toString('hex')}`;
      await runOnServer(serverUrl, `create database ${databaseName}`);
      const url = new URL(serverUrl);
      url.pathname = `/${databaseName}`;
      const dataDir = createDataDir();
      return {
        env: { DATA_DIR: dataDir, DATABASE_URL: url.toString() },
        dataDir,
        async drop() {
          await runOnServer(serverUrl, `drop database if exists ${databaseName} with (force)`);
          rmSync(dataDir, { recursive: true, force: true });
        },
      };
    },
  };
}

async function runOnServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export const testDatabaseKinds: TestDatabaseKind[] = testEnv.postgresUrl
  ? [pglite, postgres(testEnv.postgresUrl)]
  : [pglite];
