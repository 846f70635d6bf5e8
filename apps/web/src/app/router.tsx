import { type ComponentType, lazy, Suspense, useState } from 'react';
import { Navigate, type RouteObject, useRoutes } from 'react-router';

import { paths } from '../config/paths';
import { useHasTokens } from '../shared/session/session';
import { AuthLayout } from './layouts/auth-layout';
import { SiteLayout } from './layouts/site-layout';
import { NotFoundPage } from './routes/not-found-page';
import { PageErrorBoundary, RootErrorBoundary } from './routes/route-error-boundary';

/** `/`: members go to /dashboard, visitors to /home. */
function RootRedirect(): React.JSX.Element {
  const hasTokens = useHasTokens();
  return (
    <Navigate to={hasTokens ? paths.dashboard.root.getHref() : paths.home.getHref()} replace />
  );
}

/** A page whose code loads the first time it is shown, from a file of its own. */
function lazyPage(load: () => Promise<ComponentType>): React.JSX.Element {
  const Page = lazy(async () => ({ default: await load() }));
  return <Page />;
}

/**
 * Every route of the app. Every page loads lazily, so `/home` carries neither the member area nor the
 * auth forms. When a page's code cannot be loaded or a page throws, the nearest error boundary
 * shows what happened and a way back, inside whatever frame still works. The routes are plain
 * elements for `useRoutes` (AppRoutes below), not a data router: the app loads no data through
 * the router, and React Router's data router weighed 15 kB of gzip more on every page. Each app
 * makes its own (AppRoutes), so a test's app loads its pages afresh, mocks included.
 */
function createRoutes(): RouteObject[] {
  return [
    {
      // The support desk, for operators: a frame of its own, outside the site's, and a route tree
      // of its own (routes/support-desk-routes.tsx), loaded the first time an /ops address opens,
      // so that no visitor or member page carries more of it than this line. Its addresses are the
      // desk's (features/support-desk/paths.ts), spelled here only as this mount point: imported,
      // that table would be in every page's first JavaScript.
      path: '/ops/*',
      element: lazyPage(
        async () => (await import('./routes/support-desk-routes')).SupportDeskRoutes,
      ),
    },
    {
      path: paths.root.path,
      element: <SiteLayout />,
      children: [
        {
          // Inside the site's frame, so a failed page keeps the header and footer.
          element: <PageErrorBoundary />,
          children: [
            { index: true, element: <RootRedirect /> },
            {
              path: paths.home.path,
              element: lazyPage(
                async () => (await import('../features/marketing/pages/home-page')).HomePage,
              ),
            },
            {
              element: <AuthLayout />,
              children: [
                {
                  path: paths.auth.login.path,
                  element: lazyPage(
                    async () => (await import('../features/auth/pages/login-page')).LoginPage,
                  ),
                },
                {
                  path: paths.auth.register.path,
                  element: lazyPage(
                    async () => (await import('../features/auth/pages/register-page')).RegisterPage,
                  ),
                },
                {
                  path: paths.auth.reset.path,
                  element: lazyPage(
                    async () => (await import('../features/auth/pages/reset-page')).ResetPage,
                  ),
                },
                {
                  path: paths.account.recover.path,
                  element: lazyPage(
                    async () => (await import('../features/auth/pages/recover-page')).RecoverPage,
                  ),
                },
              ],
            },
            {
              path: paths.account.verifyEmail.path,
              element: lazyPage(
                async () =>
                  (await import('../features/account/pages/verify-email-page')).VerifyEmailPage,
              ),
            },
            {
              // Outside the auth layout: the owner may open it while signed in, and must reach it.
              path: paths.account.cancelEmailChange.path,
              element: lazyPage(
                async () =>
                  (await import('../features/account/pages/cancel-email-change-page'))
                    .CancelEmailChangePage,
              ),
            },
            {
              // Outside the auth layout, as the email change's: the owner may be signed in.
              path: paths.account.signInNotMe.path,
              element: lazyPage(
                async () =>
                  (await import('../features/account/pages/sign-in-not-me-page')).SignInNotMePage,
              ),
            },
            {
              // Outside the member area and the auth layout: no one is signed in any more.
              path: paths.account.deleted.path,
              element: lazyPage(
                async () =>
                  (await import('../features/account/pages/account-deleted-page'))
                    .AccountDeletedPage,
              ),
            },
            {
              path: paths.purchase.root.path,
              element: lazyPage(
                async () => (await import('../features/purchase/pages/purchase-page')).PurchasePage,
              ),
            },
            {
              path: paths.purchase.complete.path,
              element: lazyPage(
                async () =>
                  (await import('../features/purchase/pages/purchase-complete-page'))
                    .PurchaseCompletePage,
              ),
            },
            {
              path: paths.dashboard.root.path,
              element: lazyPage(async () => (await import('./layouts/member-layout')).MemberLayout),
              children: [
                {
                  // Inside the member area, so a failed page keeps the menu.
                  element: <PageErrorBoundary />,
                  children: [
                    {
                      index: true,
                      element: lazyPage(
                        async () =>
                          (await import('../features/premium/pages/dashboard-page')).DashboardPage,
                      ),
                    },
                    {
                      path: paths.dashboard.history.path,
                      element: lazyPage(
                        async () =>
                          (await import('../features/premium/pages/history-page')).HistoryPage,
                      ),
                    },
                    {
                      path: paths.dashboard.settings.path,
                      element: lazyPage(
                        async () =>
                          (await import('../features/account/pages/settings-page')).SettingsPage,
                      ),
                    },
                    { path: '*', element: <NotFoundPage /> },
                  ],
                },
              ],
            },
            { path: '*', element: <NotFoundPage /> },
          ],
        },
      ],
    },
  ];
}

/**
 * The page at the current address. Until the first page's code has loaded, nothing shows, as
 * before the app starts; later navigations are transitions, so the page being left stays until the
 * next one is ready.
 */
export function AppRoutes(): React.JSX.Element {
  const [routes] = useState(createRoutes);
  return (
    <RootErrorBoundary>
      <Suspense fallback={null}>{useRoutes(routes)}</Suspense>
    </RootErrorBoundary>
  );
}
