import { screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { switchLocale } from '../../../shared/i18n/i18n';
import { renderApp } from '../../../testing/render-app';

/** The marketing page's texts come from the catalogs: in German, none of them is English. */
describe('/home in German', () => {
  beforeEach(() => switchLocale('de'));
  afterEach(() => switchLocale('en'));

  it('shows the German hero and cards', async () => {
    renderApp('/home');

    expect(
      await screen.findByRole('heading', {
        level: 1,
        name: 'Verbessern Sie Ihre Männergesundheit in wenigen Minuten am Tag',
      }),
    ).toBeVisible();
    expect(screen.getByRole('region', { name: 'Was Sie hier tun können' })).toBeVisible();
    expect(
      screen.getAllByRole('heading', { level: 2 }).map((heading) => heading.textContent),
    ).toEqual(
      expect.arrayContaining(['Ihr Fortschritt', 'Ihr Premium-Tarif', 'Ihr Konto, sicher']),
    );
    expect(screen.queryByText(/Improve your men/)).toBeNull();
  });
});
