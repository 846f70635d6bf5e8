// The second generator a mobile or web team reaches for: openapi-typescript's `paths` types (in
// generated-client/openapi-typescript/, kept fresh by generated-client-freshness.test.ts), called
// through openapi-fetch over real HTTP. Its checks are partly at compile time: this file is
// type-checked, and the `@ts-expect-error` lines fail typecheck the day the document stops
// requiring what they leave out.
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { paths } from './generated-client/openapi-typescript/schema';
import { MEMBER_PASSWORD } from './support/desk-actions';
import { answered, expectAsContractSays } from './support/generated-client-calls';
import { startTestServer, type TestServer, uniqueEmail } from './support/test-app';
import { testDatabaseKinds } from './support/test-databases';

// One database kind is enough: what is under test is the document and the types made from it.
const kind = testDatabaseKinds[0]!;

describe("the API through openapi-fetch, typed by openapi-typescript's paths", () => {
  let server: TestServer;
  let client: ReturnType<typeof createClient<paths>>;

  beforeAll(async () => {
    server = await startTestServer(kind);
    client = createClient<paths>({
      baseUrl: await server.app.listen({ host: '127.0.0.1', port: 0 }),
    });
  });
  afterAll(() => server.close());

  it('registers, signs in and reads the profile with the types of the document', async () => {
    const email = uniqueEmail('paths');
    const body = { email, password: MEMBER_PASSWORD };
    const registration = await client.POST('/api/auth/local/register/email', { body });
    expect(registration.response.status).toBe(201);
    expectAsContractSays('register', registration);

    const signIn = await client.POST('/api/auth/local/login/email', { body });
    expectAsContractSays('login', signIn);
    const tokens = answered(signIn);
    if ('mfaRequired' in tokens) throw new Error('a new member has no two-step sign-in');

    const profile = await client.GET('/api/users/profile', {
      headers: { authorization: `Bearer ${tokens.accessToken}` },
    });
    expect(profile.response.status).toBe(200);
    expectAsContractSays('readProfile', profile);
    expect(answered(profile)).toEqual({
      id: answered(registration).id,
      email,
      subscriptionEndDate: null,
      hasPassword: true,
      twoStepEnabled: false,
      locale: 'en',
    });
  });

  it('types a request the document refuses as an error, and the server refuses it with 400', async () => {
    const refused = await client.POST('/api/auth/local/login/email', {
      // @ts-expect-error: the document requires the password.
      body: { email: uniqueEmail('no-password') },
    });
    expect(refused.response.status).toBe(400);
    expectAsContractSays('login', refused);
    expect(refused.error?.statusCode).toBe(400);
  });
});
