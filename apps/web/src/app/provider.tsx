import { QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { type DataRouter, RouterProvider } from 'react-router';
import { Slide, ToastContainer, toast } from 'react-toastify';

import { isExemptFromLoginRedirect, paths } from '../config/paths';
import { setRenewalFailedHandler, setUnauthorizedHandler, tokenStore } from '../shared/http/api';
import { createQueryClient } from '../shared/query/query-client';
import { onAccountChangedElsewhere, sessionQueries } from '../shared/session/session';

/**
 * The app around its router: the query client (cache times, retries and the toasts of every
 * write), the toasts (top-right, 5000 ms), what a 401 means and how a renewal that keeps failing
 * is told. The browser passes its router
 * (main.tsx); a test passes a memory router.
 */
const RENEWAL_FAILED_TOAST = 'session-renewal-failed';

export function AppProvider({ router }: { router: DataRouter }): React.JSX.Element {
  const [queryClient] = useState(createQueryClient);

  useEffect(() => {
    setUnauthorizedHandler(() => {
      // The server no longer knows this session: forget it here too.
      tokenStore.clear();
      queryClient.clear();
      const { pathname, search } = router.state.location;
      // No redirect from where a visitor is expected: the auth pages, checkout and the emailed-link
      // pages.
      if (!isExemptFromLoginRedirect(pathname)) {
        void router.navigate(paths.auth.login.getHref(`${pathname}${search}`), { replace: true });
      }
    });
  }, [queryClient, router]);

  useEffect(() => {
    setRenewalFailedHandler((message) => {
      // The person stays signed in; the requests that waited for the renewal failed. One toast,
      // however many of them there were.
      toast.error(message, { toastId: RENEWAL_FAILED_TOAST });
    });
  }, []);

  useEffect(
    () =>
      onAccountChangedElsewhere(() => {
        void queryClient.invalidateQueries({ queryKey: sessionQueries.all() });
      }),
    [queryClient],
  );

  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
      <ToastContainer position="top-right" autoClose={5000} transition={Slide} newestOnTop />
    </QueryClientProvider>
  );
}
