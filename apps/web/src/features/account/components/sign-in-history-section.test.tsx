import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { fakeApi } from '../../../testing/fake-api';
import { renderApp, signInAs } from '../../../testing/render-app';

describe('/dashboard/settings, Sign-in history', () => {
  it('lists sign-ins and failed attempts as the server orders them, with device, method and address', async () => {
    signInAs();
    fakeApi.on('listSignIns', {
      body: {
        data: [
          {
            at: '2026-11-25T10:00:00.000Z',
            method: 'google',
            device: 'Firefox on Windows',
            address: '198.51.100.4',
            outcome: 'success',
          },
          {
            at: '2026-11-25T09:00:00.000Z',
            method: 'password',
            device: 'Chrome on macOS',
            address: '2001:db8:1:2::/64',
            outcome: 'failure',
          },
        ],
      },
    });
    renderApp('/dashboard/settings');

    const list = await screen.findByRole('list', { name: 'Sign-in history' });
    const [latest, failed] = within(list).getAllByRole('listitem');
    expect(latest).toHaveTextContent('Firefox on WindowsSigned in');
    expect(latest).toHaveTextContent(/Google · 198\.51\.100\.4$/);
    expect(failed).toHaveTextContent('Chrome on macOSWrong password');
    expect(failed).toHaveTextContent(/Email and password · 2001:db8:1:2::\/64$/);
  });

  it('says when nothing is recorded yet', async () => {
    signInAs();
    fakeApi.on('listSignIns', { body: { data: [] } });
    renderApp('/dashboard/settings');
    expect(await screen.findByText('No sign-ins recorded yet.')).toBeVisible();
  });
});
