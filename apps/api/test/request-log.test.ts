import { Writable } from 'node:stream';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { post, registerAndLogin } from './support/accounts';
import { linkIn, startTestServer, type TestServer, uniqueEmail } from './support/test-app';
import { testDatabaseKinds } from './support/test-databases';

/**
 * The request log, as an operator's log pipeline receives it: emailed links carry live codes and
 * addresses in their query, so a logged request names its path and never its query.
 */
describe.each(testDatabaseKinds)('the request log on $name', (kind) => {
  let server: TestServer;
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });

  beforeAll(async () => {
    server = await startTestServer(kind, { logger: { level: 'info', stream: logStream } });
  });
  afterAll(() => server.close());

  /** The `req` of each "incoming request" line: what Fastify writes for every request. */
  function loggedRequests(): Array<{ method: string; url: string }> {
    return lines
      .map((line) => JSON.parse(line) as { msg?: string; req?: { method: string; url: string } })
      .filter((entry) => entry.msg === 'incoming request' && entry.req)
      .map((entry) => entry.req!);
  }

  it("logs an emailed link's page by its path, without the code or the address", async () => {
    const email = uniqueEmail('logged');
    const { accessToken } = await registerAndLogin(server.app, email, 'correct horse');
    await post(server.app, '/auth/reset-password', { email });
    const reset = linkIn(
      await server.inbox.waitFor(
        (message) => message.to.includes(email) && message.subject.includes('Reset'),
      ),
    );
    const newEmail = uniqueEmail('moved');
    await post(
      server.app,
      '/auth/change-email',
      { newEmail, password: 'correct horse' },
      accessToken,
    );
    const change = linkIn(await server.inbox.waitFor((message) => message.to.includes(newEmail)));
    const codes = [reset.searchParams.get('code')!, change.searchParams.get('code')!];
    lines.length = 0;

    for (const link of [reset, change]) {
      await server.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    }
    await server.app.inject({
      method: 'GET',
      url: `/purchase/complete?email=${encodeURIComponent(email)}&session=cs_test_1`,
    });
    // API calls too: a query never reaches the log, whatever the path.
    await server.app.inject({
      method: 'GET',
      url: `/api/health?email=${encodeURIComponent(email)}&code=${codes[0]}`,
    });

    expect(loggedRequests()).toEqual([
      expect.objectContaining({ method: 'GET', url: '/account/recover/new' }),
      expect.objectContaining({ method: 'GET', url: '/account/verify-email' }),
      expect.objectContaining({ method: 'GET', url: '/purchase/complete' }),
      expect.objectContaining({ method: 'GET', url: '/api/health' }),
    ]);
    const log = lines.join('\n');
    for (const secret of ['code=', 'email=', 'newEmail=', ...codes]) {
      expect(log).not.toContain(secret);
    }
    expect(log).not.toContain(encodeURIComponent(email));
  });
});
