// The sign-in and register pages drawn in German: their own texts (the `auth` and `forms`
// namespaces), the contract's field rules (localizeMessage) and the server's refusals, which
// arrive in German already. A key missing from de.json, or a page still showing English, fails here.
import { screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { switchLocale } from '../../../shared/i18n/i18n';
import { errorReply, fakeApi } from '../../../testing/fake-api';
import { renderApp } from '../../../testing/render-app';

beforeEach(async () => {
  await switchLocale('de');
});

afterEach(async () => {
  await switchLocale('en');
});

describe('/auth/login in German', () => {
  it('shows its texts and the field rules in German', async () => {
    const { user } = renderApp('/auth/login');

    expect(await screen.findByRole('heading', { level: 1, name: 'Anmelden' })).toBeVisible();
    expect(
      screen.getByText(
        'Willkommen zurück. Melden Sie sich an, um Ihre Mitgliedschaft zu verwalten.',
      ),
    ).toBeVisible();
    expect(screen.getByRole('link', { name: 'Passwort vergessen?' })).toBeVisible();
    expect(screen.getByRole('link', { name: 'Konto erstellen' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Passwort anzeigen' })).toBeVisible();

    await user.click(screen.getByRole('button', { name: 'Anmelden' }));
    // The form's schema arrives on the page's first touch (lazy-schema.ts): its messages follow.
    const email = screen.getByRole('textbox', { name: 'E-Mail-Adresse' });
    await waitFor(() => expect(email).toHaveAccessibleDescription('E-Mail-Adresse erforderlich'));
    expect(screen.getByLabelText('Passwort')).toHaveAccessibleDescription('Passwort erforderlich');
  });
});

describe('/auth/register in German', () => {
  async function openRegister() {
    const view = renderApp('/auth/register');
    expect(await screen.findByRole('heading', { level: 1, name: 'Konto erstellen' })).toBeVisible();
    const fields = {
      email: screen.getByRole('textbox', { name: 'E-Mail-Adresse' }),
      password: screen.getByLabelText('Passwort'),
      confirmation: screen.getByLabelText('Passwort bestätigen'),
    };
    const submit = () => view.user.click(screen.getByRole('button', { name: 'Konto erstellen' }));
    return { ...view, fields, submit };
  }

  it("shows the contract's rule for a short password in German under the password field", async () => {
    const { user, fields, submit } = await openRegister();
    expect(screen.getByText('Ein Konto für das Web und die App.')).toBeVisible();

    await user.type(fields.email, 'neu@example.com');
    await user.type(fields.password, 'kurz');
    await user.type(fields.confirmation, 'kurz');
    await submit();

    await waitFor(() =>
      expect(fields.password).toHaveAccessibleDescription('Das Passwort ist zu kurz'),
    );
    expect(fakeApi.requestsTo('register')).toEqual([]);
  });

  it("puts the server's German refusal under the password field, not in a toast", async () => {
    const refusal =
      'Dieses Passwort ist zu verbreitet. Bitte wählen Sie eines, das schwerer zu erraten ist.';
    fakeApi.on('register', errorReply(400, refusal));
    const { user, fields, submit } = await openRegister();
    await user.type(fields.email, 'neu@example.com');
    await user.type(fields.password, 'Password1');
    await user.type(fields.confirmation, 'Password1');
    await submit();

    await waitFor(() => expect(fields.password).toHaveAccessibleDescription(refusal));
    // Under the field only: a toast would show it a second time.
    expect(screen.getAllByText(refusal)).toHaveLength(1);
    expect(fakeApi.requestsTo('register')[0]?.headers.get('accept-language')).toBe('de');
  });
});
