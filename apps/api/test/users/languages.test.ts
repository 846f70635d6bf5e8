// A member's language (users.locale): taken from the page he registers on, changed in his
// preferences, answered with his profile; and every answer's text in the request's language.
import type { Preferences, Profile } from '@kegel/contract';
import { CATALOGS } from '@kegel/contract/i18n/catalogs';
import { pseudoLocalize } from '@kegel/contract/i18n';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { getProfile, login, post, register, registerAndLogin } from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const GERMAN = CATALOGS.de.messages;
const SPANISH = CATALOGS.es.messages;

function registerIn(app: FastifyInstance, email: string, acceptLanguage: string) {
  return app.inject({
    method: 'POST',
    url: '/api/auth/local/register/email',
    headers: { 'accept-language': acceptLanguage },
    payload: { email, password: 'correct horse' },
  });
}

function putPreferences(app: FastifyInstance, accessToken: string, body: object, language = 'en') {
  return app.inject({
    method: 'PUT',
    url: '/api/users/preferences',
    headers: { authorization: `Bearer ${accessToken}`, 'accept-language': language },
    payload: body,
  });
}

function loginIn(app: FastifyInstance, acceptLanguage: string, body: object) {
  return app.inject({
    method: 'POST',
    url: '/api/auth/local/login/email',
    headers: { 'accept-language': acceptLanguage },
    payload: body,
  });
}

describe.each(testDatabaseKinds)('languages on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  it("stores the language of the page he registers on (the request's Accept-Language)", async () => {
    const email = uniqueEmail('lang');
    const registered = await registerIn(server.app, email, 'de-AT,de;q=0.9,en;q=0.5');
    expect(registered.statusCode, registered.body).toBe(201);
    const { accessToken } = await login(server.app, email, 'correct horse');
    expect((await getProfile(server.app, accessToken)).json<Profile>().locale).toBe('de');

    // A request naming no language we speak registers in English.
    const other = uniqueEmail('lang');
    expect((await registerIn(server.app, other, 'fr-FR')).statusCode).toBe(201);
    const row = await server.app.database.db
      .selectFrom('users')
      .select('locale')
      .where('email', '=', other)
      .executeTakeFirstOrThrow();
    expect(row.locale).toBe('en');
  });

  it('changes his language in his preferences, and answers it with his profile', async () => {
    const { accessToken } = await registerAndLogin(
      server.app,
      uniqueEmail('lang'),
      'correct horse',
    );
    const changed = await putPreferences(server.app, accessToken, { locale: 'es' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json<Preferences>()).toMatchObject({ locale: 'es', expiryReminders: true });

    const read = await server.app.inject({
      method: 'GET',
      url: '/api/users/preferences',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(read.json<Preferences>().locale).toBe('es');
    expect((await getProfile(server.app, accessToken)).json<Profile>().locale).toBe('es');

    // Another preference alone leaves the language as it is.
    const reminders = await putPreferences(server.app, accessToken, { expiryReminders: false });
    expect(reminders.json<Preferences>()).toMatchObject({ locale: 'es', expiryReminders: false });
  });

  it('refuses a language the product does not speak, and changes nothing', async () => {
    const { accessToken } = await registerAndLogin(
      server.app,
      uniqueEmail('lang'),
      'correct horse',
    );
    for (const locale of ['fr', 'en-XA', 'DE', '', null, 7]) {
      const refused = await putPreferences(server.app, accessToken, { locale });
      expect(refused.statusCode, `${String(locale)}: ${refused.body}`).toBe(400);
      expect(refused.json()).toMatchObject({ fields: [{ field: 'locale' }] });
    }
    expect((await getProfile(server.app, accessToken)).json<Profile>().locale).toBe('en');

    // Nothing to change is still refused, in the caller's language.
    const nothing = await putPreferences(server.app, accessToken, {}, 'de');
    expect(nothing.statusCode).toBe(400);
    expect(nothing.json()).toMatchObject({
      message: [GERMAN['preferences.nothingToChange']],
    });
  });

  it('answers a wrong password in German to a German page, naming its language', async () => {
    const email = uniqueEmail('lang');
    await register(server.app, email, 'correct horse');
    const refused = await loginIn(server.app, 'de-DE,de;q=0.9', { email, password: 'wrong horse' });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: GERMAN['auth.invalidCredentials'],
    });
    expect(refused.json<{ message: string }>().message).toBe(
      'E-Mail-Adresse oder Passwort ungültig',
    );
    expect(refused.headers['content-language']).toBe('de');
    expect(String(refused.headers.vary)).toMatch(/accept-language/i);

    // English stays the spec's text, word for word; the pseudo-locale only when asked exactly.
    const english = await loginIn(server.app, 'en-US', { email, password: 'wrong horse' });
    expect(english.json<{ message: string }>().message).toBe('Invalid email or password');
    const pseudo = await loginIn(server.app, 'en-XA', { email, password: 'wrong horse' });
    expect(pseudo.json<{ message: string }>().message).toBe(
      pseudoLocalize('Invalid email or password'),
    );
  });

  it("words field problems in the caller's language, a field's name kept as sent", async () => {
    const refused = await loginIn(server.app, 'es', { password: 'correct horse' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      message: [SPANISH['field.emailRequired']],
      fields: [{ field: 'email', message: SPANISH['field.emailRequired'] }],
    });

    // A text of the API's own, worded with its field: the template's translation.
    const missing = await server.app.inject({
      method: 'POST',
      url: '/api/auth/refresh',
      headers: { 'accept-language': 'de' },
      payload: {},
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({
      message: ['refreshToken ist erforderlich'],
      fields: [{ field: 'refreshToken', message: 'refreshToken ist erforderlich' }],
    });
  });

  it("answers the API's own texts and success messages in the caller's language", async () => {
    const notFound = await server.app.inject({
      method: 'GET',
      url: '/api/no-such-call',
      headers: { 'accept-language': 'es' },
    });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.json<{ message: string }>().message).toBe(SPANISH['api.notFound']);

    const unsigned = await server.app.inject({
      method: 'GET',
      url: '/api/users/profile',
      headers: { 'accept-language': 'de' },
    });
    expect(unsigned.json<{ message: string }>().message).toBe(GERMAN['api.signInRequired']);

    const { accessToken, refreshToken } = await registerAndLogin(
      server.app,
      uniqueEmail('lang'),
      'correct horse',
    );
    const signedOut = await server.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { authorization: `Bearer ${accessToken}`, 'accept-language': 'de' },
      payload: { refreshToken },
    });
    expect(signedOut.statusCode, signedOut.body).toBe(200);
    expect(signedOut.json()).toEqual({ message: 'Abgemeldet' });
    expect(signedOut.headers['content-language']).toBe('de');
  });

  it('leaves English answers as the spec writes them', async () => {
    const response = await post(server.app, '/auth/local/login/email', {
      email: uniqueEmail('lang'),
      password: 'wrong horse',
    });
    expect(response.json<{ message: string }>().message).toBe('Invalid email or password');
    expect(response.headers['content-language']).toBe('en');
  });
});
