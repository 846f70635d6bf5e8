import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { TestProject } from 'vitest/node';

import { openDatabase } from '../../src/db/database';
import { databaseUrl, runOnServer } from './postgres-server';
import { testEnv } from './test-env';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the run's PGlite directories go; removed as a whole when the run ends. */
    scratchDir: string;
    /** A migrated PGlite directory that `create()` copies; never opened by a test. */
    pgliteTemplateDir: string;
    /** A migrated PostgreSQL database that `create()` clones, when TEST_DATABASE_URL is set. */
    postgresTemplateName: string | null;
  }
}

/**
 * vitest's globalSetup for the API project: migrates one database of each kind once per run, so a
 * test file gets a migrated database by copying (PGlite) or cloning (PostgreSQL) instead of
 * running initdb and every migration again, which costs seconds per PGlite directory.
 */
export default async function prepareTemplateDatabases(project: TestProject) {
  const scratchDir = mkdtempSync(path.join(scratchBase(), 'kegel-api-tests-'));
  const [pgliteTemplateDir, postgresTemplateName] = await Promise.all([
    preparePgliteTemplate(path.join(scratchDir, 'template', 'pglite')),
    testEnv.postgresUrl ? preparePostgresTemplate(testEnv.postgresUrl) : null,
  ]);
  project.provide('scratchDir', scratchDir);
  project.provide('pgliteTemplateDir', pgliteTemplateDir);
  project.provide('postgresTemplateName', postgresTemplateName);

  return async () => {
    rmSync(scratchDir, { recursive: true, force: true });
    if (testEnv.postgresUrl && postgresTemplateName) {
      await runOnServer(
        testEnv.postgresUrl,
        `drop database if exists ${postgresTemplateName} with (force)`,
      );
    }
  };
}

/**
 * A PGlite directory is about 40 MB in a thousand files, and PostgreSQL syncs its writes: on a
 * disk shared with other work, copying one and committing into it take seconds. Memory (tmpfs)
 * makes both nearly free, and these databases are thrown away anyway.
 */
function scratchBase(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

async function preparePgliteTemplate(dataDir: string): Promise<string> {
  const handle = await openDatabase({ kind: 'pglite', dataDir });
  // Closed before anyone copies it: PGlite writes its files out on close.
  await handle.close();
  return dataDir;
}

async function preparePostgresTemplate(serverUrl: string): Promise<string> {
  const name = `kegel_template_${randomBytes(6).toString('hex')}`;
  await runOnServer(serverUrl, `create database ${name}`);
  const handle = await openDatabase({ kind: 'postgres', url: databaseUrl(serverUrl, name) });
  // Its pool must be gone: PostgreSQL clones a template only while nobody is connected to it.
  await handle.close();
  return name;
}
