// A member's language (README, Languages): his stored choice wins over the visitor's cookie and
// the browser's, so the app applies it as soon as his profile arrives, and keeps it in the cookie
// for the server, which draws his next page in it. A choice made on this device (the footer's
// links, Account Settings' "Language") is stored with his account, so every device follows it.
import { isLocale, type Locale } from '@kegel/contract/i18n';
import { hashKey, type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect } from 'react';

import { api } from '../http/api';
import { currentLocale, rememberLocaleChoice, switchLocale } from '../i18n/i18n';
import { toasts } from '../ui/toasts';
import { sessionQueries, useHasTokens } from './session';

/**
 * Shows the app in the member's stored language whenever his profile arrives saying which. It
 * watches the cache rather than asking for the profile: an observer of its own would keep a
 * signed-out member's profile drawn after the cache is cleared.
 */
export function useStoredLanguage(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const { queryKey } = sessionQueries.profile();
    return queryClient.getQueryCache().subscribe((event) => {
      if (event.type !== 'updated' || event.query.queryHash !== hashKey(queryKey)) return;
      const stored: unknown = queryClient.getQueryData(queryKey)?.locale;
      // A code this build does not speak (a newer server's) would show every text as its key.
      if (!isLocale(stored) || stored === currentLocale()) return;
      rememberLocaleChoice(stored);
      void switchLocale(stored).then(() => askAgainForWordedAnswers(queryClient));
    });
  }, [queryClient]);
}

/**
 * Switches the app to `locale` and keeps the choice: in the cookie, and with a signed-in member's
 * account (his profile shows it at once; if the server refuses, the toast says why and the page
 * stays in the language chosen).
 */
export function useChooseLanguage(): (locale: Locale) => Promise<void> {
  const queryClient = useQueryClient();
  const hasTokens = useHasTokens();
  return useCallback(
    async (locale: Locale) => {
      rememberLocaleChoice(locale);
      await switchLocale(locale);
      if (!hasTokens) return;
      void askAgainForWordedAnswers(queryClient);
      const { queryKey } = sessionQueries.profile();
      queryClient.setQueryData(queryKey, (profile) => profile && { ...profile, locale });
      try {
        await api.call('updatePreferences', { body: { locale } });
      } catch (error) {
        toasts.error((error as Error).message);
      }
    },
    [hasTokens, queryClient],
  );
}

/**
 * The answers the server words in the page's language (the purchases' names: its database keeps
 * them in English), fetched again in the new one.
 */
function askAgainForWordedAnswers(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: sessionQueries.purchases().queryKey });
}
