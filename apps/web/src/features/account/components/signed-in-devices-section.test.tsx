import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { fakeApi } from '../../../testing/fake-api';
import { findToast, renderApp, signInAs } from '../../../testing/render-app';

const NOW = new Date().toISOString();

function sessions(ids: string[]) {
  return {
    data: ids.map((id, index) => ({
      id,
      createdAt: NOW,
      lastUsedAt: NOW,
      device: index === 0 ? 'Firefox on Windows' : 'Chrome on macOS',
      method: index === 0 ? 'password' : 'google',
      current: index === 0,
    })),
  };
}

describe("/dashboard/settings, Where you're signed in", () => {
  it('lists the devices, marks this one, and signs another out with a toast', async () => {
    signInAs();
    let open = ['here', 'there'];
    fakeApi.on('listSessions', () => ({ body: sessions(open) }));
    fakeApi.on('endSession', () => {
      open = ['here'];
      return { body: { message: 'Signed out' } };
    });
    const { user } = renderApp('/dashboard/settings');

    const list = await screen.findByRole('list', { name: "Where you're signed in" });
    const [here, there] = within(list).getAllByRole('listitem');
    expect(here).toHaveTextContent('Firefox on WindowsThis device');
    expect(within(here!).queryByRole('button')).toBeNull();
    expect(there).toHaveTextContent('Chrome on macOS');
    expect(there).toHaveTextContent('Google · Last active');

    await user.click(within(there!).getByRole('button', { name: /^Sign out Chrome on macOS/ }));
    expect(await findToast('Signed out')).toBeVisible();
    expect(fakeApi.requestsTo('endSession')[0]?.path).toBe('/users/sessions/there');
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(1));
    expect(screen.queryByRole('button', { name: 'Sign out of all other devices' })).toBeNull();
  });

  it('signs out of all other devices', async () => {
    signInAs();
    let open = ['here', 'there', 'elsewhere'];
    fakeApi.on('listSessions', () => ({ body: sessions(open) }));
    fakeApi.on('endOtherSessions', () => {
      open = ['here'];
      return { body: { message: 'Signed out of all other devices' } };
    });
    const { user } = renderApp('/dashboard/settings');
    await user.click(await screen.findByRole('button', { name: 'Sign out of all other devices' }));
    expect(await findToast('Signed out of all other devices')).toBeVisible();
    const list = screen.getByRole('list', { name: "Where you're signed in" });
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(1));
  });
});
