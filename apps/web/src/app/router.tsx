import { createBrowserRouter, Navigate } from 'react-router';

import { paths } from '../config/paths';
import { SiteLayout } from './layouts/site-layout';
import { NotFoundPage } from './routes/not-found-page';

/**
 * Routes of spec §2. Pages load lazily so `/home` does not carry the member or purchase pages.
 */
export const router = createBrowserRouter([
  {
    path: paths.root.path,
    element: <SiteLayout />,
    children: [
      { index: true, element: <Navigate to={paths.home.getHref()} replace /> },
      {
        path: paths.home.path,
        lazy: async () => ({
          Component: (await import('../features/marketing/pages/home-page')).HomePage,
        }),
      },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]);
