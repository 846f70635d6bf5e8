import { Navigate, Outlet, useSearchParams } from 'react-router';

import { paths, safeReturnPath } from '../../config/paths';
import { useHasTokens } from '../../shared/session/session';

/**
 * The auth pages (login, register, reset, recover): a signed-in person is sent on, to `r` when it
 * is a path of this site, else to /dashboard (spec §2). This is also how a login lands.
 */
export function AuthLayout(): React.JSX.Element {
  const hasTokens = useHasTokens();
  const [searchParams] = useSearchParams();
  if (hasTokens) {
    return (
      <Navigate
        to={safeReturnPath(searchParams.get('r')) ?? paths.dashboard.root.getHref()}
        replace
      />
    );
  }
  return <Outlet />;
}
