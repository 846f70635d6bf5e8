import { render, screen, within } from '@testing-library/react';
import { lazy, Suspense } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import { renderApp, signInAs } from '../testing/render-app';
import { PageErrorBoundary } from './routes/route-error-boundary';

// Two pages that throw while rendering: one in the site frame, one in the member area.
vi.mock('../features/marketing/pages/home-page', () => ({
  HomePage: () => {
    throw new Error('A bug in the page');
  },
}));
vi.mock('../features/premium/pages/dashboard-page', () => ({
  DashboardPage: () => {
    throw new Error('A bug in the dashboard');
  },
}));

beforeEach(() => {
  // React reports the errors it caught on the console; they are expected here.
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

describe('a page that fails', () => {
  it('says something went wrong, inside the site frame, with a reload and a way home', async () => {
    renderApp('/home');

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Something went wrong' }),
    ).toBeVisible();
    expect(screen.getByRole('button', { name: 'Reload the page' })).toBeVisible();
    expect(screen.getByRole('link', { name: 'Go to the home page' })).toHaveAttribute(
      'href',
      '/home',
    );
    expect(
      within(screen.getByRole('banner')).getByRole('link', { name: 'Kegel Coach' }),
    ).toBeVisible();
    expect(
      within(screen.getByRole('contentinfo')).getByText('2024, all rights reserved'),
    ).toBeVisible();
  });

  it('keeps the member menu when a page of the member area fails', async () => {
    signInAs();
    renderApp('/dashboard');

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Something went wrong' }),
    ).toBeVisible();
    expect(screen.getByRole('navigation', { name: 'Member Settings' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Logout' })).toBeVisible();
  });

  it("says the page could not be loaded when its code cannot be fetched (Chromium's words)", async () => {
    // As after a deploy that removed the old files, or with the connection gone.
    const UnreachablePage = lazy(() =>
      Promise.reject(
        new TypeError(
          'Failed to fetch dynamically imported module: http://localhost/assets/page.js',
        ),
      ),
    );
    render(
      <MemoryRouter>
        <Suspense fallback={null}>
          <Routes>
            <Route element={<PageErrorBoundary />}>
              <Route path="/" element={<UnreachablePage />} />
            </Route>
          </Routes>
        </Suspense>
      </MemoryRouter>,
    );

    expect(
      await screen.findByRole('heading', { level: 1, name: 'This page could not be loaded' }),
    ).toBeVisible();
    expect(screen.getByRole('button', { name: 'Reload the page' })).toBeVisible();
  });

  it('reloads the page from the reload button', async () => {
    const reload = vi.fn();
    vi.spyOn(window, 'location', 'get').mockReturnValue({ ...window.location, reload });
    const { user } = renderApp('/home');
    await user.click(await screen.findByRole('button', { name: 'Reload the page' }));
    expect(reload).toHaveBeenCalled();
  });
});

describe('an unknown path', () => {
  it('says the page was not found, with a way home', async () => {
    renderApp('/no/such/page');
    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
    expect(screen.getByRole('link', { name: 'Go to the home page' })).toHaveAttribute(
      'href',
      '/home',
    );
  });
});
