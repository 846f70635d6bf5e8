import { QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';

import { isExemptFromLoginRedirect, paths } from '../config/paths';
import { i18n } from '../shared/i18n/i18n';
import { LanguageProvider } from '../shared/i18n/language-provider';
import { setRenewalFailedHandler, setUnauthorizedHandler, tokenStore } from '../shared/http/api';
import { createQueryClient } from '../shared/query/query-client';
import { useStoredLanguage } from '../shared/session/language-choice';
import { onAccountChangedElsewhere, sessionQueries } from '../shared/session/session';
import { ToastRegion } from '../shared/ui/toast-region';
import { toasts } from '../shared/ui/toasts';

/**
 * The app around its pages: the query client (cache times, retries and the toasts of every
 * write), the toasts (top-right, 5000 ms), what a 401 means and how a renewal that keeps failing
 * is told. It sits inside a router: the browser's (main.tsx), or a test's memory router
 * (src/testing/render-app.tsx).
 */
const RENEWAL_FAILED_TOAST = 'session-renewal-failed';

export function AppProvider({ children }: { children: ReactNode }): React.JSX.Element {
  const [queryClient] = useState(createQueryClient);
  const navigate = useNavigate();
  const location = useLocation();
  // The handler reads the address when a 401 arrives, not when it was set.
  const currentLocation = useRef(location);
  useEffect(() => {
    currentLocation.current = location;
  }, [location]);

  useEffect(() => {
    setUnauthorizedHandler(() => {
      // The server no longer knows this session: forget it here too.
      tokenStore.clear();
      queryClient.clear();
      const { pathname, search } = currentLocation.current;
      // No redirect from where a visitor is expected: the auth pages, checkout and the emailed-link
      // pages.
      if (!isExemptFromLoginRedirect(pathname)) {
        void navigate(paths.auth.login.getHref(`${pathname}${search}`), { replace: true });
      }
    });
  }, [queryClient, navigate]);

  useEffect(() => {
    setRenewalFailedHandler((message) => {
      // The person stays signed in; the requests that waited for the renewal failed. One toast,
      // however many of them there were.
      toasts.error(message, { id: RENEWAL_FAILED_TOAST });
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
    <LanguageProvider i18n={i18n}>
      <QueryClientProvider client={queryClient}>
        <StoredLanguage />
        {children}
        <ToastRegion />
      </QueryClientProvider>
    </LanguageProvider>
  );
}

/** A member's stored language, applied once his profile arrives (inside the query client). */
function StoredLanguage(): null {
  useStoredLanguage();
  return null;
}
