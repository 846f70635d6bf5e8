import { type ComponentType, lazy, useState } from 'react';
import { type RouteObject, useRoutes } from 'react-router';

import { deskPaths } from '../../features/support-desk/paths';
import { DeskLayout } from '../../features/support-desk/components/desk-layout';
import { loadCatalogs } from '../../shared/i18n/i18n';
import { NotFoundPage } from './not-found-page';
import { PageErrorBoundary } from './route-error-boundary';

/**
 * A page of the desk whose code loads the first time it is shown, from a file of its own, with its
 * texts in the page's language before it first draws (as the site's router does): the member's
 * Purchase History that "view as member" borrows brings namespaces the desk's frame did not load.
 */
function lazyPage(load: () => Promise<ComponentType>): React.JSX.Element {
  const Page = lazy(async () => {
    const page = await load();
    await loadCatalogs();
    return { default: page };
  });
  return <Page />;
}

/** A path of the desk's (features/support-desk/paths.ts), as this tree (mounted at /ops/*) matches it. */
function underOps(path: string): string {
  return path.slice(`${deskPaths.root.path}/`.length);
}

/**
 * The support desk's routes, in the desk's frame (DeskLayout, which first asks who the person is
 * on the desk). Loaded with the frame the first time an /ops address opens; each page loads as a
 * file of its own.
 */
function createDeskRoutes(): RouteObject[] {
  return [
    {
      element: <DeskLayout />,
      children: [
        {
          // Inside the desk's frame, so a failed page keeps its header.
          element: <PageErrorBoundary />,
          children: [
            {
              index: true,
              element: lazyPage(
                async () =>
                  (await import('../../features/support-desk/pages/find-member-page'))
                    .FindMemberPage,
              ),
            },
            {
              path: underOps(deskPaths.member.path),
              element: lazyPage(
                async () =>
                  (await import('../../features/support-desk/pages/member-page')).MemberPage,
              ),
            },
            {
              path: underOps(deskPaths.viewAs.path),
              // The member's Purchase History tables come from his history page's file, loaded
              // beside the desk's page: the desk importing them itself would split them into a
              // file of their own, which the member's page would then load as well.
              element: lazyPage(async () => {
                const [{ ViewAsPage }, { PurchaseHistory }] = await Promise.all([
                  import('../../features/support-desk/pages/view-as-page'),
                  import('../../features/premium/pages/history-page'),
                ]);
                return function ViewAsMember(): React.JSX.Element {
                  return <ViewAsPage PurchaseHistory={PurchaseHistory} />;
                };
              }),
            },
            {
              path: underOps(deskPaths.audit.path),
              element: lazyPage(
                async () =>
                  (await import('../../features/support-desk/pages/audit-page')).AuditPage,
              ),
            },
            { path: '*', element: <NotFoundPage /> },
          ],
        },
      ],
    },
  ];
}

export function SupportDeskRoutes(): React.JSX.Element | null {
  const [routes] = useState(createDeskRoutes);
  return useRoutes(routes);
}
