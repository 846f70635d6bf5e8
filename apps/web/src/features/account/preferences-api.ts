// Account Settings' preferences, apart from api.ts: only the settings page loads them, and the
// pages that share api.ts (verify email, cancel an email change) carry none of it.
import { preferencesMessages, type UpdatePreferencesRequest } from '@kegel/contract';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '../../shared/http/api';
import '../../shared/i18n/contract-messages';
import { localizeMessage } from '../../shared/i18n/i18n';
import { sessionQueries } from '../../shared/session/session';
import { useAccountText } from './text';

/** The member's preferences (Account Settings). Keyed under the session: signing out drops it. */
export const preferencesQuery = () =>
  queryOptions({
    queryKey: [...sessionQueries.all(), 'preferences'],
    queryFn: ({ signal }) => api.call('readPreferences', { signal }),
  });

/**
 * Saves one preference as soon as its box changes: the box shows the new answer at once, is put
 * back if the server refuses, and shows what the server kept once it answers.
 */
export function useUpdatePreferences() {
  const text = useAccountText();
  const queryClient = useQueryClient();
  const { queryKey } = preferencesQuery();
  return useMutation({
    mutationFn: (change: UpdatePreferencesRequest) =>
      api.call('updatePreferences', { body: change }),
    meta: {
      toasts: {
        pending: text('toast.saving'),
        success: localizeMessage(preferencesMessages.saved),
      },
    },
    onMutate: async (change) => {
      await queryClient.cancelQueries({ queryKey });
      const before = queryClient.getQueryData(queryKey);
      if (before) queryClient.setQueryData(queryKey, { ...before, ...change });
      return { before };
    },
    onError: (_error, _change, context) => {
      if (context?.before) queryClient.setQueryData(queryKey, context.before);
    },
    onSuccess: (saved) => queryClient.setQueryData(queryKey, saved),
  });
}
