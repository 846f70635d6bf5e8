import type { DataExport } from '@kegel/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { changeEmailThroughLink, post, registerAndLogin } from '../support/accounts';
import {
  chargeRefundedEvent,
  checkoutEvent,
  deliverStripeEvent,
  newPaymentIntentId,
} from '../support/stripe-events';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

/** "Download your data": one JSON attachment with what the product keeps, never a secret. */
describe.each(testDatabaseKinds)('the data export on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  it("holds the member's profile, sessions, purchases with refunds and mail, as an attachment", async () => {
    const email = uniqueEmail('export');
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    const paymentIntentId = newPaymentIntentId();
    await deliverStripeEvent(server.app, checkoutEvent({ email, paymentIntentId }));
    await deliverStripeEvent(
      server.app,
      chargeRefundedEvent({ paymentIntentId, amount: 999, amountRefunded: 500 }),
    );
    await post(server.app, '/auth/reset-password', { email });

    const response = await server.app.inject({
      method: 'GET',
      url: '/api/users/export',
      headers: { authorization: `Bearer ${tokens.accessToken}` },
    });
    expect(response.statusCode).toBe(200);
    const day = new Date().toISOString().slice(0, 10);
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="kegel-coach-data-${day}.json"`,
    );
    const data = response.json<DataExport>();
    expect(data.profile).toMatchObject({ email, hasPassword: true });
    expect(data.sessions).toHaveLength(1);
    expect(data.sessions[0]).toMatchObject({ method: 'password', endedAt: null });
    expect(data.purchases).toEqual([
      expect.objectContaining({
        plan: '1 Week',
        provider: 'Stripe',
        amount: 9.99,
        currency: 'usd',
        refundedAt: null,
        refundedAmount: 5,
      }),
    ]);
    expect(data.emails.map((mail) => mail.template)).toContain('password-reset');
    expect(data.identities).toEqual([]);
    expect(data.appStoreSubscriptions).toEqual([]);
    expect(data.preferences).toEqual({
      appleConsumptionConsent: false,
      appleConsumptionConsentChangedAt: null,
      expiryReminders: true,
      locale: 'en',
    });
    expect(data.appleRefundRequests).toEqual([]);
    // Nothing secret leaves: no hash, token, code or mail body.
    expect(response.body).not.toMatch(/argon2|passwordHash|refreshToken|encryptedPayload|code=/);
    expect(response.body).not.toContain(tokens.refreshToken);
  });

  async function exportedMail(accessToken: string) {
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/users/export',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(response.statusCode).toBe(200);
    return response.json<DataExport>().emails.map((mail) => `${mail.template} ${mail.recipient}`);
  }

  it('lists the mail about the account at any address, the one he moved away from included', async () => {
    const oldEmail = uniqueEmail('export-old');
    const member = await registerAndLogin(server.app, oldEmail, 'correct horse');
    const newEmail = uniqueEmail('export-new');
    await changeEmailThroughLink(server, member.accessToken, {
      newEmail,
      password: 'correct horse',
    });

    const mail = await exportedMail(member.accessToken);
    expect(mail).toContain(`email-change-notice ${oldEmail}`);
    expect(mail).toContain(`email-change-confirmation ${newEmail}`);
  });

  it("holds none of a deleted former owner's mail at the address, his deletion's confirmation included", async () => {
    const email = uniqueEmail('export-again');
    const former = await registerAndLogin(server.app, email, 'correct horse');
    expect((await post(server.app, '/auth/reset-password', { email })).statusCode).toBe(200);
    const deleted = await post(
      server.app,
      '/users/delete',
      { password: 'correct horse' },
      former.accessToken,
    );
    expect(deleted.statusCode, deleted.body).toBe(200);

    const member = await registerAndLogin(server.app, email, 'another horse');
    const mail = await exportedMail(member.accessToken);
    expect(mail).not.toContain(`account-deleted ${email}`);
    expect(mail).not.toContain(`password-reset ${email}`);
  });

  it('needs a signed-in member', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/api/users/export' });
    expect(response.statusCode).toBe(401);
  });
});
