// Renders the whole app (providers, layouts, lazy pages) at a path, in a memory router, for a
// test to drive by role and visible text as a person would.
import de from '@kegel/contract/catalogs/de.json';
import en from '@kegel/contract/catalogs/en.json';
import es from '@kegel/contract/catalogs/es.json';
import type { Profile } from '@kegel/contract';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useLayoutEffect } from 'react';
import { MemoryRouter, useLocation } from 'react-router';

import { AppProvider } from '../app/provider';
import { AppRoutes } from '../app/router';
import { tokenStore } from '../shared/http/api';
import { fakeApi } from './fake-api';

export function renderApp(path: string) {
  const start = new URL(path, 'http://localhost');
  let currentPathname = start.pathname;
  let currentSearch = start.search;
  const user = userEvent.setup();
  render(
    <MemoryRouter initialEntries={[path]}>
      <AppProvider>
        <AppRoutes />
      </AppProvider>
      <FollowLocation
        onChange={(location) => {
          currentPathname = location.pathname;
          currentSearch = location.search;
        }}
      />
    </MemoryRouter>,
  );
  return {
    user,
    /** The path the address bar would show. */
    pathname: () => currentPathname,
    /** The query the address bar would show: `?r=%2Fdashboard`. */
    search: () => currentSearch,
  };
}

/** Tells the memory router's current path and query as they change. */
function FollowLocation({
  onChange,
}: {
  onChange: (location: { pathname: string; search: string }) => void;
}): null {
  const { pathname, search } = useLocation();
  useLayoutEffect(() => onChange({ pathname, search }), [onChange, pathname, search]);
  return null;
}

/** The toasts' region, named in whichever language the test draws the app in. */
const TOASTS = {
  name: (name: string) =>
    [en, es, de].some(({ common }) => name.startsWith(common.notifications.split(' ')[0] ?? '')),
};

/**
 * A toast with exactly this text, waiting for it to appear (the toasts' region itself appears with
 * the first toast: shared/ui/toast-region.tsx).
 */
export async function findToast(text: string): Promise<HTMLElement> {
  return within(await screen.findByRole('region', TOASTS)).findByText(text, { exact: true });
}

/** A toast with exactly this text if one is shown now, else null: to check that none is. */
export function queryToast(text: string): HTMLElement | null {
  const region = screen.queryByRole('region', TOASTS);
  return region ? within(region).queryByText(text, { exact: true }) : null;
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
    twoStepEnabled: false,
    locale: null,
    ...profile,
  };
  fakeApi.on('readProfile', { body: member });
  tokenStore.write({ accessToken: tokenExpiringInAnHour(), refreshToken: tokenExpiringInAnHour() });
  return member;
}
