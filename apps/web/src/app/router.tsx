import { Navigate, type RouteObject } from 'react-router';

import { paths } from '../config/paths';
import { useHasTokens } from '../shared/session/session';
import { AuthLayout } from './layouts/auth-layout';
import { SiteLayout } from './layouts/site-layout';
import { NotFoundPage } from './routes/not-found-page';
import { RootErrorPage, RouteErrorPage } from './routes/route-error-page';

/** `/`: members go to /dashboard, visitors to /home. */
function RootRedirect(): React.JSX.Element {
  const hasTokens = useHasTokens();
  return (
    <Navigate to={hasTokens ? paths.dashboard.root.getHref() : paths.home.getHref()} replace />
  );
}

/** The first page's code is loading: nothing yet, as before the app starts. */
function NothingWhileTheFirstPageLoads(): null {
  return null;
}

/**
 * Every route of the app. Every page loads lazily, so `/home` carries neither the member area nor the
 * auth forms. When a page's code cannot be loaded or a page throws, the nearest error element
 * shows what happened and a way back, inside whatever frame still works. The browser's router is
 * made from these routes in main.tsx, a test's memory router in src/testing/render-app.tsx.
 */
export const routes: RouteObject[] = [
  {
    path: paths.root.path,
    element: <SiteLayout />,
    errorElement: <RootErrorPage />,
    HydrateFallback: NothingWhileTheFirstPageLoads,
    children: [
      {
        // Inside the site's frame, so a failed page keeps the header and footer.
        errorElement: <RouteErrorPage />,
        children: [
          { index: true, element: <RootRedirect /> },
          {
            path: paths.home.path,
            lazy: async () => ({
              Component: (await import('../features/marketing/pages/home-page')).HomePage,
            }),
          },
          {
            element: <AuthLayout />,
            children: [
              {
                path: paths.auth.login.path,
                lazy: async () => ({
                  Component: (await import('../features/auth/pages/login-page')).LoginPage,
                }),
              },
              {
                path: paths.auth.register.path,
                lazy: async () => ({
                  Component: (await import('../features/auth/pages/register-page')).RegisterPage,
                }),
              },
              {
                path: paths.auth.reset.path,
                lazy: async () => ({
                  Component: (await import('../features/auth/pages/reset-page')).ResetPage,
                }),
              },
              {
                path: paths.account.recover.path,
                lazy: async () => ({
                  Component: (await import('../features/auth/pages/recover-page')).RecoverPage,
                }),
              },
            ],
          },
          {
            path: paths.account.verifyEmail.path,
            lazy: async () => ({
              Component: (await import('../features/account/pages/verify-email-page'))
                .VerifyEmailPage,
            }),
          },
          {
            // Outside the auth layout: the owner may open it while signed in, and must reach it.
            path: paths.account.cancelEmailChange.path,
            lazy: async () => ({
              Component: (await import('../features/account/pages/cancel-email-change-page'))
                .CancelEmailChangePage,
            }),
          },
          {
            path: paths.purchase.root.path,
            lazy: async () => ({
              Component: (await import('../features/purchase/pages/purchase-page')).PurchasePage,
            }),
          },
          {
            path: paths.purchase.complete.path,
            lazy: async () => ({
              Component: (await import('../features/purchase/pages/purchase-complete-page'))
                .PurchaseCompletePage,
            }),
          },
          {
            path: paths.dashboard.root.path,
            lazy: async () => ({
              Component: (await import('./layouts/member-layout')).MemberLayout,
            }),
            children: [
              {
                // Inside the member area, so a failed page keeps the menu.
                errorElement: <RouteErrorPage />,
                children: [
                  {
                    index: true,
                    lazy: async () => ({
                      Component: (await import('../features/membership/pages/dashboard-page'))
                        .DashboardPage,
                    }),
                  },
                  {
                    path: paths.dashboard.history.path,
                    lazy: async () => ({
                      Component: (await import('../features/membership/pages/history-page'))
                        .HistoryPage,
                    }),
                  },
                  {
                    path: paths.dashboard.settings.path,
                    lazy: async () => ({
                      Component: (await import('../features/account/pages/settings-page'))
                        .SettingsPage,
                    }),
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
