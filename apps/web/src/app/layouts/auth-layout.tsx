import { useIsMutating } from '@tanstack/react-query';
import { Navigate, Outlet, useSearchParams } from 'react-router';

import { pathAfterSignIn } from '../../config/paths';
import { authMutationKeys } from '../../features/auth/mutation-keys';
import { useHasTokens } from '../../shared/session/session';

/**
 * The auth pages (login, register, reset, recover) are for visitors: a signed-in person is sent
 * on, to `r` when it is a path of this site, else to /dashboard. Not while a sign-in started here
 * is finishing (its tokens are stored before the profile has loaded): that page takes the person
 * on itself once it has.
 */
export function AuthLayout(): React.JSX.Element {
  const hasTokens = useHasTokens();
  const isSigningIn = useIsMutating({ mutationKey: authMutationKeys.signIn() }) > 0;
  const [searchParams] = useSearchParams();
  if (hasTokens && !isSigningIn) {
    return <Navigate to={pathAfterSignIn(searchParams.get('r'))} replace />;
  }
  return <Outlet />;
}
