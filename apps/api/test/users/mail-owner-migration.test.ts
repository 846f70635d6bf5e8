import type { DataExport } from '@kegel/contract';
import { hash } from '@node-rs/argon2';
import { afterEach, describe, expect, it } from 'vitest';

import { type DatabaseHandle, openDatabase } from '../../src/db/database';
import { ARGON2_OPTIONS } from '../../src/security/password-hasher';
import { login } from '../support/accounts';
import { buildTestApp, testConfig } from '../support/test-app';
import { type TestDatabase, testDatabaseKinds } from '../support/test-databases';

const OWNER_MIGRATION = '0016-mail-owner-backfill.sql';
/** From here on every mail names its account; rows written before name no one. */
const MAIL_NAMES_ITS_ACCOUNT = '0013-mail-owner.sql';
const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(testDatabaseKinds)('mail written before it named its account, on $name', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function open(database: TestDatabase, through?: string): Promise<DatabaseHandle> {
    const handle = await openDatabase(testConfig(database).database, { through });
    cleanups.push(() => handle.close());
    return handle;
  }

  it("is exported to the account that held its address when it was written, never a former owner's", async () => {
    const database = await kind.create({ empty: true });
    cleanups.push(() => database.drop());
    const before = await open(database, MAIL_NAMES_ITS_ACCOUNT);
    const { db } = before;
    const email = 'member@example.com';
    const registeredAt = new Date(Date.now() - 10 * DAY_MS);
    const at = (days: number) => new Date(registeredAt.getTime() + days * DAY_MS);
    await db
      .insertInto('users')
      .values({
        email,
        passwordHash: await hash('correct horse', ARGON2_OPTIONS),
        subscriptionEndDate: null,
        createdAt: registeredAt,
      })
      .execute();
    const unowned = (template: string, recipient: string, createdAt: Date) =>
      db
        .insertInto('outboxEmails')
        .values({ recipient, template, encryptedPayload: null, createdAt, userId: null })
        .execute();
    // The member's own, the address written as he once typed it.
    await unowned('password-reset', 'Member@Example.com', at(1));
    // A former owner's, before the member registered the address.
    await unowned('email-change-notice', email, at(-3));
    // A deletion's confirmation is about an account that is gone, whenever it was written.
    await unowned('account-deleted', email, at(2));
    // Someone else's.
    await unowned('password-changed', 'someone@example.com', at(1));
    await before.close();
    cleanups.pop();

    const after = await open(database);
    expect(after.appliedMigrations).toContain(OWNER_MIGRATION);
    await after.close();
    cleanups.pop();

    const app = await buildTestApp(database);
    cleanups.push(() => app.close());
    const { accessToken } = await login(app, email, 'correct horse');
    const response = await app.inject({
      method: 'GET',
      url: '/api/users/export',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(response.statusCode).toBe(200);
    expect(
      response.json<DataExport>().emails.map((mail) => `${mail.template} ${mail.recipient}`),
    ).toEqual(['password-reset Member@Example.com']);
  }, 120_000);
});
