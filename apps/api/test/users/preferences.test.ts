import type { Preferences } from '@kegel/contract';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { registerAndLogin } from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

function callPreferences(app: FastifyInstance, accessToken: string | undefined, body?: unknown) {
  return app.inject({
    method: body === undefined ? 'GET' : 'PUT',
    url: '/api/users/preferences',
    headers: accessToken ? { authorization: `Bearer ${accessToken}` } : {},
    ...(body === undefined ? {} : { payload: body as object }),
  });
}

/** Account Settings' preferences: Apple consumption consent (with its time) and expiry reminders. */
describe.each(testDatabaseKinds)('preferences on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  it("start with the consent off (never given), reminders on, and his page's language", async () => {
    const { accessToken } = await registerAndLogin(
      server.app,
      uniqueEmail('prefs'),
      'correct horse',
    );
    const response = await callPreferences(server.app, accessToken);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<Preferences>()).toEqual({
      appleConsumptionConsent: false,
      appleConsumptionConsentChangedAt: null,
      expiryReminders: true,
      locale: 'en',
    });
  });

  it('keep the time consent was given, and move it only when the answer changes', async () => {
    const { accessToken } = await registerAndLogin(
      server.app,
      uniqueEmail('prefs'),
      'correct horse',
    );
    const given = await callPreferences(server.app, accessToken, { appleConsumptionConsent: true });
    expect(given.statusCode, given.body).toBe(200);
    const first = given.json<Preferences>();
    expect(first.appleConsumptionConsent).toBe(true);
    expect(first.expiryReminders).toBe(true);
    expect(Date.now() - Date.parse(first.appleConsumptionConsentChangedAt ?? '')).toBeLessThan(
      60_000,
    );

    const again = await callPreferences(server.app, accessToken, { appleConsumptionConsent: true });
    expect(again.json<Preferences>().appleConsumptionConsentChangedAt).toBe(
      first.appleConsumptionConsentChangedAt,
    );

    const withdrawn = await callPreferences(server.app, accessToken, {
      appleConsumptionConsent: false,
    });
    const after = withdrawn.json<Preferences>();
    expect(after.appleConsumptionConsent).toBe(false);
    expect(after.appleConsumptionConsentChangedAt).not.toBeNull();
    expect(after.appleConsumptionConsentChangedAt).not.toBe(first.appleConsumptionConsentChangedAt);

    // Reminders alone leave the consent and its time as they were.
    const reminders = await callPreferences(server.app, accessToken, { expiryReminders: false });
    expect(reminders.json<Preferences>()).toEqual({ ...after, expiryReminders: false });
    expect((await callPreferences(server.app, accessToken)).json<Preferences>()).toEqual({
      ...after,
      expiryReminders: false,
    });
  });

  it('refuse a body with nothing to change or a wrong type, and change nothing', async () => {
    const { accessToken } = await registerAndLogin(
      server.app,
      uniqueEmail('prefs'),
      'correct horse',
    );
    const empty = await callPreferences(server.app, accessToken, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('Choose a preference to change');
    const wrong = await callPreferences(server.app, accessToken, {
      appleConsumptionConsent: 'yes',
      expiryReminders: false,
    });
    expect(wrong.statusCode).toBe(400);
    expect((await callPreferences(server.app, accessToken)).json<Preferences>()).toMatchObject({
      appleConsumptionConsent: false,
      expiryReminders: true,
    });
  });

  it('are for the signed-in member only', async () => {
    expect((await callPreferences(server.app, undefined)).statusCode).toBe(401);
    expect(
      (await callPreferences(server.app, undefined, { expiryReminders: false })).statusCode,
    ).toBe(401);
  });
});
