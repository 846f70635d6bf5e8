import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { post, register } from '../support/accounts';
import { buildTestApp, uniqueEmail } from '../support/test-app';
import { type TestDatabase, testDatabaseKinds } from '../support/test-databases';

describe('the local inbox (no SMTP_URL)', () => {
  let database: TestDatabase;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  beforeAll(async () => {
    database = await testDatabaseKinds[0]!.create();
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  it('receives the mail over SMTP and shows it at /dev/inbox', async () => {
    const email = uniqueEmail('inbox');
    await register(app, email, 'correct horse');
    await post(app, '/auth/reset-password', { email });

    let list = '';
    for (let wait = 0; wait < 100 && !list.includes(email); wait += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      list = (await app.inject({ method: 'GET', url: '/dev/inbox' })).body;
    }
    expect(list).toContain(email);
    expect(list).toContain('Reset your Kegel Coach password');

    const id = /href="\/dev\/inbox\/(\d+)"/.exec(list)?.[1];
    const message = await app.inject({ method: 'GET', url: `/dev/inbox/${id}` });
    expect(message.headers['content-security-policy']).toMatch(/^sandbox/);
    expect(message.body).toContain('/account/recover/new?email=');

    const json = await app.inject({ method: 'GET', url: '/dev/inbox/messages.json' });
    expect(json.json()).toEqual([
      expect.objectContaining({ to: [email], subject: 'Reset your Kegel Coach password' }),
    ]);
  });
});
