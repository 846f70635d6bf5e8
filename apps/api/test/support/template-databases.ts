import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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

const SCRATCH_PREFIX = 'kegel-api-tests-';

/**
 * vitest's globalSetup for the API project: migrates one database of each kind once per run, so a
 * test file gets a migrated database by copying (PGlite) or cloning (PostgreSQL) instead of
 * running initdb and every migration again, which costs seconds per PGlite directory.
 */
export default async function prepareTemplateDatabases(project: TestProject) {
  const base = scratchBase();
  removeScratchOfEndedRuns(base);
  const scratchDir = mkdtempSync(path.join(base, `${SCRATCH_PREFIX}${process.pid}-`));
  const pgliteTemplateDir = path.join(scratchDir, 'template', 'pglite');
  const serverUrl = testEnv.postgresUrl;
  const postgresTemplateName = serverUrl
    ? `kegel_template_${randomBytes(6).toString('hex')}`
    : null;

  async function removeTemplates() {
    rmSync(scratchDir, { recursive: true, force: true });
    if (serverUrl && postgresTemplateName) {
      await runOnServer(serverUrl, `drop database if exists ${postgresTemplateName} with (force)`);
    }
  }

  const prepared = await Promise.allSettled([
    preparePgliteTemplate(pgliteTemplateDir),
    serverUrl && postgresTemplateName && preparePostgresTemplate(serverUrl, postgresTemplateName),
  ]);
  const failure = prepared.find((result) => result.status === 'rejected');
  if (failure) {
    // Both have settled: nothing is still writing into what is removed here.
    await removeTemplates().catch(() => {});
    throw failure.reason;
  }

  project.provide('scratchDir', scratchDir);
  project.provide('pgliteTemplateDir', pgliteTemplateDir);
  project.provide('postgresTemplateName', postgresTemplateName);
  return removeTemplates;
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

/** A run that was killed never removed its directories; in tmpfs they would hold memory. */
function removeScratchOfEndedRuns(base: string): void {
  for (const name of readdirSync(base)) {
    const pid = Number(new RegExp(`^${SCRATCH_PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (pid && !isRunning(pid)) rmSync(path.join(base, name), { recursive: true, force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function preparePgliteTemplate(dataDir: string): Promise<void> {
  const handle = await openDatabase({ kind: 'pglite', dataDir });
  // Closed before anyone copies it: PGlite writes its files out on close.
  await handle.close();
}

async function preparePostgresTemplate(serverUrl: string, name: string): Promise<void> {
  try {
    await runOnServer(serverUrl, `create database ${name}`);
  } catch (error) {
    throw new Error(`TEST_DATABASE_URL: cannot create a database: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const handle = await openDatabase({ kind: 'postgres', url: databaseUrl(serverUrl, name) });
  // Its pool must be gone: PostgreSQL clones a template only while nobody is connected to it.
  await handle.close();
}
