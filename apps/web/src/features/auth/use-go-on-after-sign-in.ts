import { useCallback } from 'react';
import { useNavigate, useSearchParams } from 'react-router';

import { pathAfterSignIn } from '../../config/paths';

/**
 * Takes the person on after a successful sign-in: back to the page in `r`, else to /dashboard.
 * The sign-in page is replaced in the history, so Back does not lead to a form already done.
 */
export function useGoOnAfterSignIn(): () => void {
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  return useCallback(() => {
    void navigate(pathAfterSignIn(searchParams.get('r')), { replace: true });
  }, [navigate, searchParams]);
}
