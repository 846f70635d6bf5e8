// What the app draws around and instead of the pages, in German: the member menu (the `member`
// namespace) and the page for an unknown address (`common`). A key missing from de.json fails here.
import { screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { switchLocale } from '../shared/i18n/i18n';
import { renderApp, signInAs } from '../testing/render-app';

beforeEach(async () => {
  await switchLocale('de');
});

afterEach(async () => {
  await switchLocale('en');
});

describe('the frame in German', () => {
  it('names the member menu and its entries in German', async () => {
    signInAs();
    renderApp('/dashboard/no-such-page');

    const menu = await screen.findByRole('navigation', { name: 'Mitgliedereinstellungen' });
    expect(menu).toHaveTextContent('Kontoeinstellungen');
    expect(menu).toHaveTextContent('Kaufverlauf');
    expect(screen.getByRole('button', { name: 'Abmelden' })).toBeVisible();
  });

  it('says in German that a page was not found, with a way home', async () => {
    renderApp('/no/such/page');

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Seite nicht gefunden' }),
    ).toBeVisible();
    expect(screen.getByRole('link', { name: 'Zur Startseite' })).toHaveAttribute('href', '/home');
  });
});
