import { type ComponentType, lazy, Suspense, useState } from 'react';
import { Navigate, type RouteObject, useRoutes } from 'react-router';

import { paths } from '../config/paths';
import { PageTakenOver } from '../shared/browser/use-is-app-running';
import { loadCatalogs } from '../shared/i18n/i18n';
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

/**
 * A page whose code loads the first time it is shown, from a file of its own. Each `load` is
 * written `() => import(file).then((module) => module.Page)` rather than
 * `async () => (await import(file)).Page`: the build turns the latter into a longer wrapper per
 * route, and the shorter form is what lets the desk's /ops route sit in this table without the
 * visitor and member pages' first JavaScript growing by a byte (scripts/initial-javascript.test.ts
 * pins their sizes).
 */
function lazyPage(load: () => Promise<ComponentType>): React.JSX.Element {
  // The page's texts in the page's language before it first draws (shared/i18n/i18n.ts).
  const Page = lazy(async () => {
    const page = await load();
    await loadCatalogs();
    return { default: page };
  });
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
      element: lazyPage(() =>
        import('./routes/support-desk-routes').then((module) => module.SupportDeskRoutes),
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
              element: lazyPage(() =>
                import('../features/marketing/pages/home-page').then((module) => module.HomePage),
              ),
            },
            {
              element: <AuthLayout />,
              children: [
                {
                  path: paths.auth.login.path,
                  element: lazyPage(() =>
                    import('../features/auth/pages/login-page').then((module) => module.LoginPage),
                  ),
                },
                {
                  path: paths.auth.register.path,
                  element: lazyPage(() =>
                    import('../features/auth/pages/register-page').then(
                      (module) => module.RegisterPage,
                    ),
                  ),
                },
                {
                  path: paths.auth.reset.path,
                  element: lazyPage(() =>
                    import('../features/auth/pages/reset-page').then((module) => module.ResetPage),
                  ),
                },
                {
                  path: paths.account.recover.path,
                  element: lazyPage(() =>
                    import('../features/auth/pages/recover-page').then(
                      (module) => module.RecoverPage,
                    ),
                  ),
                },
              ],
            },
            {
              path: paths.account.verifyEmail.path,
              element: lazyPage(() =>
                import('../features/account/pages/verify-email-page').then(
                  (module) => module.VerifyEmailPage,
                ),
              ),
            },
            {
              // Outside the auth layout: the owner may open it while signed in, and must reach it.
              path: paths.account.cancelEmailChange.path,
              element: lazyPage(() =>
                import('../features/account/pages/cancel-email-change-page').then(
                  (module) => module.CancelEmailChangePage,
                ),
              ),
            },
            {
              // Outside the auth layout, as the email change's: the owner may be signed in.
              path: paths.account.signInNotMe.path,
              element: lazyPage(() =>
                import('../features/account/pages/sign-in-not-me-page').then(
                  (module) => module.SignInNotMePage,
                ),
              ),
            },
            {
              // Outside the auth layout and the member area: signed in or not, the link works.
              path: paths.account.unsubscribe.path,
              element: lazyPage(() =>
                import('../features/account/pages/unsubscribe-page').then(
                  (module) => module.UnsubscribePage,
                ),
              ),
            },
            {
              // Outside the member area and the auth layout: no one is signed in any more.
              path: paths.account.deleted.path,
              element: lazyPage(() =>
                import('../features/account/pages/account-deleted-page').then(
                  (module) => module.AccountDeletedPage,
                ),
              ),
            },
            {
              path: paths.purchase.root.path,
              element: lazyPage(() =>
                import('../features/purchase/pages/purchase-page').then(
                  (module) => module.PurchasePage,
                ),
              ),
            },
            {
              path: paths.purchase.complete.path,
              element: lazyPage(() =>
                import('../features/purchase/pages/purchase-complete-page').then(
                  (module) => module.PurchaseCompletePage,
                ),
              ),
            },
            {
              path: paths.dashboard.root.path,
              element: lazyPage(() =>
                import('./layouts/member-layout').then((module) => module.MemberLayout),
              ),
              children: [
                {
                  // Inside the member area, so a failed page keeps the menu.
                  element: <PageErrorBoundary />,
                  children: [
                    {
                      index: true,
                      element: lazyPage(() =>
                        import('../features/premium/pages/dashboard-page').then(
                          (module) => module.DashboardPage,
                        ),
                      ),
                    },
                    {
                      path: paths.dashboard.history.path,
                      element: lazyPage(() =>
                        import('../features/premium/pages/history-page').then(
                          (module) => module.HistoryPage,
                        ),
                      ),
                    },
                    {
                      path: paths.dashboard.settings.path,
                      element: lazyPage(() =>
                        import('../features/account/pages/settings-page').then(
                          (module) => module.SettingsPage,
                        ),
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
      <Suspense fallback={null}>
        <PageTakenOver />
        {useRoutes(routes)}
      </Suspense>
    </RootErrorBoundary>
  );
}
