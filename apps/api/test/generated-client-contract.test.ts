// The API called as the iPhone app's developers will call it: through the SDK @hey-api/openapi-ts
// generates from /api/openapi.json (committed under generated-client/, kept fresh by
// generated-client-freshness.test.ts), over real HTTP to a listening server. Each answer must be
// one the contract declares, with a body valid against the contract's schema for that status, and
// the generated types must carry the fields a client reads (this file compiles under typecheck).
import { callExamples } from '@kegel/contract/examples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createClient, createConfig } from './generated-client/hey-api/client';
import type { Client } from './generated-client/hey-api/client';
import {
  exportData,
  listPlans,
  login,
  logout,
  readProfile,
  refresh,
  register,
  startCheckout,
} from './generated-client/hey-api';
import { MEMBER_PASSWORD } from './support/desk-actions';
import { answered, expectAsContractSays } from './support/generated-client-calls';
import { payOnSandboxPage } from './support/stripe-events';
import { startTestServer, type TestServer, uniqueEmail } from './support/test-app';
import { testDatabaseKinds } from './support/test-databases';

// One database kind is enough: what is under test is the document and the client made from it.
const kind = testDatabaseKinds[0]!;

describe('the API through the client generated from its document by @hey-api/openapi-ts', () => {
  let server: TestServer;
  let baseUrl: string;
  /** A client with no session: the public calls. */
  let visitor: Client;

  beforeAll(async () => {
    server = await startTestServer(kind);
    // Listening for real: the client speaks HTTP, and the Stripe sandbox calls the webhook back.
    baseUrl = await server.app.listen({ host: '127.0.0.1', port: 0 });
    visitor = createClient(createConfig({ baseUrl }));
  });
  afterAll(() => server.close());

  /** A client that sends `accessToken` where the document declares bearer security. */
  function signedIn(accessToken: string): Client {
    return createClient(createConfig({ baseUrl, auth: () => accessToken }));
  }

  /** Registers and signs in through the client; the member's id, email and token pair. */
  async function newMember(label: string) {
    const email = uniqueEmail(label);
    const registered = answered(
      await register({ client: visitor, body: { email, password: MEMBER_PASSWORD } }),
    );
    const signIn = answered(
      await login({ client: visitor, body: { email, password: MEMBER_PASSWORD } }),
    );
    if ('mfaRequired' in signIn) throw new Error('a new member has no two-step sign-in');
    return { id: registered.id, email, tokens: signIn };
  }

  it('registers (201), signs in (200), reads the profile and renews the token pair', async () => {
    // The contract's own examples, as the reference page shows them (with an address of this
    // run, since the example's is taken after the first run against a database).
    const email = uniqueEmail('client');
    const { password } = callExamples.register.body;
    const registration = await register({
      client: visitor,
      body: { ...callExamples.register.body, email },
    });
    expect(registration.response.status).toBe(201);
    expectAsContractSays('register', registration);
    const member = answered(registration);
    expect(member.email).toBe(email);

    const signIn = await login({ client: visitor, body: { email, password } });
    expect(signIn.response.status).toBe(200);
    expectAsContractSays('login', signIn);
    const tokens = answered(signIn);
    if ('mfaRequired' in tokens) throw new Error('a new member has no two-step sign-in');

    const profile = await readProfile({ client: signedIn(tokens.accessToken) });
    expect(profile.response.status).toBe(200);
    expectAsContractSays('readProfile', profile);
    expect(answered(profile)).toEqual({
      id: member.id,
      email,
      subscriptionEndDate: null,
      hasPassword: true,
      twoStepEnabled: false,
      locale: 'en',
    });

    const renewal = await refresh({
      client: visitor,
      body: { refreshToken: tokens.refreshToken },
    });
    expect(renewal.response.status).toBe(200);
    expectAsContractSays('refresh', renewal);
    const renewed = answered(renewal);
    expect(renewed.refreshToken).not.toBe(tokens.refreshToken);
    const withRenewedToken = await readProfile({ client: signedIn(renewed.accessToken) });
    expect(answered(withRenewedToken).id).toBe(member.id);
  });

  it('refuses in the shape and with the statuses the document declares', async () => {
    const member = await newMember('refused');

    const taken = await register({
      client: visitor,
      body: { email: member.email, password: MEMBER_PASSWORD },
    });
    expect(taken.response.status).toBe(409);
    expectAsContractSays('register', taken);

    const wrongPassword = await login({
      client: visitor,
      body: { email: member.email, password: `not ${MEMBER_PASSWORD}` },
    });
    expect(wrongPassword.response.status).toBe(401);
    expectAsContractSays('login', wrongPassword);
    expect(wrongPassword.error?.statusCode).toBe(401);

    const anonymous = await readProfile({ client: visitor });
    expect(anonymous.response.status).toBe(401);
    expectAsContractSays('readProfile', anonymous);

    // Two renewals on, the first token is spent beyond the grace a racing client gets (only the
    // direct predecessor of the current token is answered again for a few seconds).
    const second = answered(
      await refresh({ client: visitor, body: { refreshToken: member.tokens.refreshToken } }),
    );
    answered(await refresh({ client: visitor, body: { refreshToken: second.refreshToken } }));
    const spent = await refresh({
      client: visitor,
      body: { refreshToken: member.tokens.refreshToken },
    });
    expect(spent.response.status).toBe(401);
    expectAsContractSays('refresh', spent);
  });

  it('starts a checkout on the Stripe sandbox; once paid, the plan shows in the profile and the data export', async () => {
    const member = await newMember('buyer');
    const client = signedIn(member.tokens.accessToken);
    const plans = answered(await listPlans({ client: visitor }));
    const plan = plans[0]!;

    const checkout = await startCheckout({
      client,
      body: { planId: plan.id, email: member.email },
    });
    expect(checkout.response.status).toBe(200);
    expectAsContractSays('startCheckout', checkout);
    const { paymentURL } = answered(checkout);
    const page = await fetch(paymentURL);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(plan.name);
    expect((await payOnSandboxPage(paymentURL)).status).toBe(303);

    // The sandbox's signed webhook grants the plan; the member sees it through the client.
    const premiumUntil = await premiumEndThroughClient(client);
    expect(premiumUntil).not.toBeNull();

    const download = await exportData({ client });
    expect(download.response.status).toBe(200);
    expectAsContractSays('exportData', download);
    const day = new Date().toISOString().slice(0, 10);
    expect(download.response.headers.get('content-disposition')).toBe(
      `attachment; filename="kegel-coach-data-${day}.json"`,
    );
    const data = answered(download);
    expect(data.profile).toMatchObject({ id: member.id, email: member.email });
    expect(data.profile.subscriptionEndDate).toBe(premiumUntil);
    expect(data.purchases.map((purchase) => purchase.plan)).toEqual([plan.name]);
  });

  it('signs out (logout): the session ends and its refresh token renews nothing', async () => {
    const member = await newMember('leaver');
    const signOut = await logout({
      client: visitor,
      body: { refreshToken: member.tokens.refreshToken },
    });
    expect(signOut.response.status).toBe(200);
    expectAsContractSays('logout', signOut);
    const after = await refresh({
      client: visitor,
      body: { refreshToken: member.tokens.refreshToken },
    });
    expect(after.response.status).toBe(401);
    expectAsContractSays('refresh', after);
  });
});

/** The member's premium end as readProfile answers it, once the webhook has granted the plan. */
async function premiumEndThroughClient(client: Client): Promise<string | null> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const end = answered(await readProfile({ client })).subscriptionEndDate;
    if (end) return end;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}
