import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { post, register } from './support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from './support/test-app';
import { testDatabaseKinds } from './support/test-databases';
import { testEnv } from './support/test-env';

/**
 * A body sent exactly as written, not re-serialised: JSON.stringify can neither repeat a key nor
 * escape as a client may.
 */
function postRaw(server: TestServer, url: string, body: string) {
  return server.app.inject({
    method: 'POST',
    url: `/api${url}`,
    headers: { 'content-type': 'application/json' },
    payload: body,
  });
}

describe.each(testDatabaseKinds)('what the API takes in, on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  it('refuses a JSON body that names a field twice, however it is spelled and wherever it is', async () => {
    const email = uniqueEmail('twice');
    await register(server.app, email, 'correct horse');
    // Which of the two a parser keeps is the parser's choice: a proxy or a log may have read the other.
    const signIn = await postRaw(
      server,
      '/auth/local/login/email',
      `{"email":"${email}","password":"wrong horse","password":"correct horse"}`,
    );
    expect(signIn.statusCode).toBe(400);
    expect(signIn.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'The request body names a field more than once.',
    });
    const escaped = await postRaw(
      server,
      '/payments/stripe/new',
      `{"planId":"1-week","email":"${email}","\\u0070lanId":"1-year"}`,
    );
    expect(escaped.statusCode).toBe(400);
    expect(escaped.json()).toMatchObject({
      message: 'The request body names a field more than once.',
    });
    const nested = await postRaw(
      server,
      '/auth/local/login/email',
      `{"email":"${email}","password":"correct horse","device":{"name":"a","name":"b"}}`,
    );
    expect(nested.statusCode).toBe(400);
    // Not JSON at all is refused as before, in the same shape.
    const malformed = await postRaw(server, '/auth/local/login/email', `{"email":`);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    // The same name in two objects, or twice as a value, is no repetition.
    const apart = await postRaw(
      server,
      '/auth/local/login/email',
      `{"email":"${email}","password":"correct horse","a":[{"email":1},{"email":2}],"b":"email"}`,
    );
    expect(apart.statusCode, apart.body).toBe(200);
  });

  it('refuses a NUL character anywhere in a JSON string, with 400 rather than a failed query', async () => {
    const message = 'The request body holds a NUL character (\\u0000), which no field takes.';
    for (const body of [
      `{"planId":"a\\u0000b","email":"${uniqueEmail('nul')}"}`,
      `{"planId":"1-week","email":"${uniqueEmail('nul')}","\\u0000":1}`,
      `{"planId":"1-week","email":"${uniqueEmail('nul')}","list":["\\u0000"]}`,
    ]) {
      const response = await postRaw(server, '/payments/stripe/new', body);
      expect(response.statusCode, body).toBe(400);
      expect(response.json()).toEqual({ statusCode: 400, error: 'Bad Request', message });
    }
    // The six characters \u0000, written as such, are no NUL.
    const email = uniqueEmail('not-nul');
    const registered = await postRaw(
      server,
      '/auth/local/register/email',
      `{"email":"${email}","password":"six characters \\\\u0000 are fine"}`,
    );
    expect(registered.statusCode, registered.body).toBe(201);
    const signedIn = await post(server.app, '/auth/local/login/email', {
      email,
      password: 'six characters \\u0000 are fine',
    });
    expect(signedIn.statusCode).toBe(200);
  });

  it("refuses an email whose local part is longer than 64 characters with 'Invalid email'", async () => {
    const tooLong = await post(server.app, '/auth/local/register/email', {
      email: `${'a'.repeat(65)}@example.com`,
      password: 'correct horse',
    });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: ['Invalid email'],
      fields: [{ field: 'email', message: 'Invalid email' }],
    });
    const checkout = await post(server.app, '/payments/stripe/new', {
      planId: '1-week',
      email: `${'b'.repeat(65)}@example.com`,
    });
    expect(checkout.statusCode).toBe(400);
    expect(checkout.json()).toMatchObject({ message: ['Invalid email'] });
    const longest = await post(server.app, '/auth/local/register/email', {
      email: `${'a'.repeat(60)}${Date.now().toString(36).slice(-4)}@example.com`,
      password: 'correct horse',
    });
    expect(longest.statusCode, longest.body).toBe(201);
  });
});

describe.runIf(testEnv.redisUrl)('the rate limits in Redis', () => {
  describe.each(testDatabaseKinds)('on $name', (kind) => {
    const prefix = `test-hygiene-${Date.now()}-${kind.name}`;
    let server: TestServer;
    let redis: Redis;
    beforeAll(async () => {
      server = await startTestServer(kind, {
        env: { REDIS_URL: testEnv.redisUrl!, REDIS_KEY_PREFIX: prefix },
        // The keys are looked for in Redis: a slow answer on a loaded machine must not count here.
        redisWaitMs: 10_000,
      });
      redis = new Redis(testEnv.redisUrl!);
    });
    afterAll(async () => {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(keys);
      redis.disconnect();
      await server.close();
    });

    it('name no email address in their keys: not after a failed sign-in, a reset request or a checkout', async () => {
      const email = uniqueEmail('Redis.Keys');
      await register(server.app, email, 'correct horse');
      const failed = await post(server.app, '/auth/local/login/email', {
        email,
        password: 'wrong horse',
      });
      expect(failed.statusCode).toBe(401);
      const unknown = uniqueEmail('nobody');
      await post(server.app, '/auth/local/login/email', { email: unknown, password: 'x' });
      expect((await post(server.app, '/auth/reset-password', { email })).statusCode).toBe(200);
      const checkout = await post(server.app, '/payments/stripe/new', { planId: '1-week', email });
      expect(checkout.statusCode, checkout.body).toBe(200);

      const keys = await redis.keys(`${prefix}:*`);
      // The failures, the reset mails and the checkouts were counted there.
      expect(keys.length).toBeGreaterThanOrEqual(6);
      const local = (address: string) => address.split('@')[0]!.toLowerCase();
      for (const key of keys) {
        expect(key).not.toContain('@');
        expect(key.toLowerCase()).not.toContain(local(email));
        expect(key.toLowerCase()).not.toContain(local(unknown));
      }
    });
  });
});
