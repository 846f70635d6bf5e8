// Account Settings drawn in German: its texts come from the account namespace of the catalogs, so
// a key missing there, or a catalog that no longer loads, fails here rather than on a member's
// screen (the other tests read English).
import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { switchLocale } from '../../../shared/i18n/i18n';
import { fakeApi } from '../../../testing/fake-api';
import { findToast, renderApp, signInAs } from '../../../testing/render-app';

const NOW = new Date().toISOString();

describe('/dashboard/settings in German', () => {
  beforeEach(async () => {
    await switchLocale('de');
  });

  afterEach(async () => {
    await switchLocale('en');
  });

  it('titles its sections in German', async () => {
    signInAs();
    renderApp('/dashboard/settings');

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Kontoeinstellungen' }),
    ).toBeVisible();
    for (const title of [
      'Passwort ändern',
      'Anmeldung in zwei Schritten',
      'Wo Sie angemeldet sind',
      'Anmeldeverlauf',
      'Ihre Daten',
      'Konto löschen',
    ]) {
      expect(screen.getByRole('heading', { level: 2, name: title })).toBeVisible();
    }
    expect(screen.getByRole('button', { name: 'E-Mail-Adresse ändern' })).toBeVisible();
    expect(screen.queryByRole('heading', { name: 'Account Settings' })).not.toBeInTheDocument();
  });

  it('signs the other devices out with a German toast', async () => {
    signInAs();
    let open = ['here', 'there'];
    fakeApi.on('listSessions', () => ({
      body: {
        data: open.map((id) => ({
          id,
          createdAt: NOW,
          lastUsedAt: NOW,
          device: id === 'here' ? 'Firefox on Windows' : 'Chrome on macOS',
          method: 'password',
          current: id === 'here',
        })),
      },
    }));
    fakeApi.on('endOtherSessions', () => {
      open = ['here'];
      return { body: { message: 'Signed out' } };
    });
    const { user } = renderApp('/dashboard/settings');

    const list = await screen.findByRole('list', { name: 'Wo Sie angemeldet sind' });
    expect(within(list).getByText('Dieses Gerät')).toBeVisible();
    expect(list).toHaveTextContent('E-Mail-Adresse und Passwort · Zuletzt aktiv:');
    await user.click(screen.getByRole('button', { name: 'Von allen anderen Geräten abmelden' }));

    expect(await findToast('Von allen anderen Geräten abgemeldet')).toBeVisible();
    expect(fakeApi.requestsTo('endOtherSessions')).toHaveLength(1);
  });
});
