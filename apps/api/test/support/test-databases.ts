import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';

import { inject } from 'vitest';

import { databaseUrl, runOnServer } from './postgres-server';
import { testEnv } from './test-env';

/**
 * The databases integration tests run on: PGlite always, PostgreSQL when TEST_DATABASE_URL is set.
 * Each `create()` is a database of its own (a fresh PGlite directory, or a fresh database on the
 * server), so runs and test files never see each other's rows. It comes already migrated, copied
 * from the template that template-databases.ts migrated once for the whole run; `{ empty: true }`
 * gives a database no migration has touched, for the tests of the migrations themselves.
 */
export interface TestDatabase {
  /** Environment for `loadConfig`: DATA_DIR always, DATABASE_URL for PostgreSQL. */
  env: Record<string, string>;
  dataDir: string;
  drop(): Promise<void>;
}

export interface CreateOptions {
  /** No schema at all, as on a server's first start. */
  empty?: boolean;
}

export interface TestDatabaseKind {
  name: 'PGlite' | 'PostgreSQL';
  create(options?: CreateOptions): Promise<TestDatabase>;
}

function createDataDir(): string {
  return mkdtempSync(path.join(provided('scratchDir'), 'database-'));
}

/** What template-databases.ts provided; missing only when vitest ran without that globalSetup. */
function provided<K extends 'scratchDir' | 'pgliteTemplateDir' | 'postgresTemplateName'>(key: K) {
  const value = inject(key);
  if (value === undefined) {
    throw new Error(
      `no ${key}: run the API tests through vitest.config.ts, whose globalSetup migrates the templates`,
    );
  }
  return value;
}

const pglite: TestDatabaseKind = {
  name: 'PGlite',
  async create(options = {}) {
    const dataDir = createDataDir();
    // loadConfig puts PGlite's files under DATA_DIR/pglite.
    if (!options.empty)
      cpSync(provided('pgliteTemplateDir'), path.join(dataDir, 'pglite'), { recursive: true });
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
    async create(options = {}) {
      const databaseName = `kegel_test_${randomBytes(6).toString('hex')}`;
      const templateName = options.empty ? null : provided('postgresTemplateName');
      await runOnServer(
        serverUrl,
        templateName
          ? `create database ${databaseName} template ${templateName}`
          : `create database ${databaseName}`,
      );
      const dataDir = createDataDir();
      return {
        env: { DATA_DIR: dataDir, DATABASE_URL: databaseUrl(serverUrl, databaseName) },
        dataDir,
        async drop() {
          await runOnServer(serverUrl, `drop database if exists ${databaseName} with (force)`);
          rmSync(dataDir, { recursive: true, force: true });
        },
      };
    },
  };
}

export const testDatabaseKinds: TestDatabaseKind[] = testEnv.postgresUrl
  ? [pglite, postgres(testEnv.postgresUrl)]
  : [pglite];
