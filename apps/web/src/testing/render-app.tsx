// Renders the whole app (providers, layouts, lazy pages) at a path, in a memory router, for a
// test to drive by role and visible text as a person would.
import type { Profile } from '@kegel/contract';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter } from 'react-router';

import { AppProvider } from '../app/provider';
import { routes } from '../app/router';
import { tokenStore } from '../shared/http/api';
import { fakeApi } from './fake-api';

export function renderApp(path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const user = userEvent.setup();
  render(<AppProvider router={router} />);
  return {
    user,
    /** The path the address bar would show. */
    pathname: () => router.state.location.pathname,
  };
}

/** A toast with exactly this text, waiting for it to appear. */
export function findToast(text: string): Promise<HTMLElement> {
  return within(screen.getByRole('region', { name: /Notifications/ })).findByText(text, {
    exact: true,
  });
}

/** A toast with exactly this text if one is shown now, else null: to check that none is. */
export function queryToast(text: string): HTMLElement | null {
  return within(screen.getByRole('region', { name: /Notifications/ })).queryByText(text, {
    exact: true,
  });
}

/** An unsigned JWT whose `exp` is an hour away: all the web app reads of a token. */
export function tokenExpiringInAnHour(): string {
  const part = (value: object): string => btoa(JSON.stringify(value)).replace(/=+$/, '');
  return `${part({ alg: 'HS256' })}.${part({ exp: Math.floor(Date.now() / 1000) + 3600 })}.x`;
}

/** A signed-in member: stored tokens and the profile the server answers with. */
export function signInAs(profile: Partial<Profile> = {}): Profile {
  const member: Profile = {
    id: 'member-1',
    email: 'member@example.com',
    subscriptionEndDate: null,
    hasPassword: true,
    ...profile,
  };
  fakeApi.on('readProfile', { body: member });
  tokenStore.write({ accessToken: tokenExpiringInAnHour(), refreshToken: tokenExpiringInAnHour() });
  return member;
}
