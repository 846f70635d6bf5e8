import { networkInterfaces } from 'node:os';

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

  it.each(['/dev/inbox', '/dev/inbox/1', '/dev/inbox/messages.json'])(
    'answers %s only to this machine: another address, even behind a local proxy, gets 403',
    async (url) => {
      const email = uniqueEmail('private');
      await register(app, email, 'correct horse');
      await post(app, '/auth/reset-password', { email });
      await new Promise((resolve) => setTimeout(resolve, 300));

      for (const remoteAddress of ['192.168.1.23', '10.0.0.7', '2001:db8::5', '::ffff:192.0.2.1']) {
        const response = await app.inject({ method: 'GET', url, remoteAddress });
        expect(response.statusCode, `${url} from ${remoteAddress}`).toBe(403);
        expect(response.json()).toEqual({
          statusCode: 403,
          error: 'Forbidden',
          message: 'The local inbox answers only on the machine the server runs on.',
        });
      }
      // A proxy on this machine forwarding someone else's request: the socket is loopback,
      // but the request is not this machine's.
      const proxied = await app.inject({
        method: 'GET',
        url,
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': '198.51.100.9' },
      });
      expect(proxied.statusCode).toBe(403);

      for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
        const response = await app.inject({ method: 'GET', url, remoteAddress });
        expect(response.statusCode, `${url} from ${remoteAddress}`).toBe(200);
      }
    },
  );

  it("keeps the payment and sign-in sandboxes' pages on loopback", async () => {
    const checkout = await post(app, '/payments/stripe/new', {
      planId: '1-week',
      email: uniqueEmail('buyer'),
    });
    const { port: stripePort, host: stripeHost } = new URL(
      checkout.json<{ paymentURL: string }>().paymentURL,
    );
    const identityPort = new URL(app.identitySandbox?.baseUrl ?? '').port;
    expect(stripeHost).toMatch(/^(localhost|127\.0\.0\.1):/);
    // Another interface of this machine, as another machine on the network would reach it.
    const outward = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;
    if (!outward) return;
    for (const port of [stripePort, identityPort]) {
      const reached = await fetch(`http://${outward}:${port}/`).then(
        () => true,
        () => false,
      );
      expect(reached, `${outward}:${port}`).toBe(false);
    }
  });
});
