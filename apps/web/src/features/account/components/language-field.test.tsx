import de from '@kegel/contract/catalogs/de.json';
import es from '@kegel/contract/catalogs/es.json';
import { screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';

import { switchLocale } from '../../../shared/i18n/i18n';
import { fakeApi } from '../../../testing/fake-api';
import { preferencesServer } from '../../../testing/preferences-server';
import { renderApp, signInAs } from '../../../testing/render-app';

afterEach(async () => {
  await switchLocale('en');
  document.cookie = 'kegel-locale=; path=/; max-age=0';
});

describe("a member's language", () => {
  it('is applied as soon as his profile says which, and kept in the cookie for the next page', async () => {
    signInAs({ locale: 'es' });
    preferencesServer({ locale: 'es' });
    renderApp('/dashboard/settings');
    expect(
      await screen.findByRole('heading', { level: 1, name: es.account['settings.title'] }),
    ).toBeVisible();
    expect(document.documentElement.lang).toBe('es');
    expect(document.cookie).toContain('kegel-locale=es');
    expect(await screen.findByRole('combobox', { name: es.account['language.label'] })).toHaveValue(
      'es',
    );
  });

  it('is chosen in Account Settings: the page switches at once and the server keeps it', async () => {
    signInAs();
    preferencesServer();
    const { user } = renderApp('/dashboard/settings');
    const language = await screen.findByRole('combobox', { name: 'Language' });
    expect(language).toHaveValue('en');
    await user.selectOptions(language, 'de');
    expect(
      await screen.findByRole('heading', { level: 1, name: de.account['settings.title'] }),
    ).toBeVisible();
    expect(document.documentElement.lang).toBe('de');
    await waitFor(() =>
      expect(fakeApi.requestsTo('updatePreferences').map((request) => request.body)).toEqual([
        { locale: 'de' },
      ]),
    );
    // Every later call asks for answers in German.
    await waitFor(() =>
      expect(fakeApi.requestsTo('readPreferences').at(-1)?.headers.get('accept-language')).toBe(
        'de',
      ),
    );
  });

  it("is kept with his account when he picks one from the footer's links", async () => {
    signInAs();
    preferencesServer();
    const { user } = renderApp('/dashboard/settings');
    await screen.findByRole('combobox', { name: 'Language' });
    await user.click(screen.getByRole('link', { name: 'Español' }));
    expect(
      await screen.findByRole('heading', { level: 1, name: es.account['settings.title'] }),
    ).toBeVisible();
    await waitFor(() =>
      expect(fakeApi.requestsTo('updatePreferences').map((request) => request.body)).toEqual([
        { locale: 'es' },
      ]),
    );
  });

  it('asks for his purchases again in the new language: the server words their names', async () => {
    signInAs();
    preferencesServer();
    const { user } = renderApp('/dashboard/history');
    await waitFor(() => expect(fakeApi.requestsTo('listPurchases')).toHaveLength(1));
    await user.click(screen.getByRole('link', { name: 'Deutsch' }));
    await waitFor(() =>
      expect(
        fakeApi
          .requestsTo('listPurchases')
          .map((request) => request.headers.get('accept-language')),
      ).toEqual(['en', 'de']),
    );
  });
});
