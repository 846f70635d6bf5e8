// Sign-ins the member can see (Account Settings' history) and report ("This wasn't me", from the
// notice mailed when the account signs in from a new device or network; ADR 019).
import type { Acknowledgement } from '@kegel/contract';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { api, tokenStore } from '../../shared/http/api';
import { sessionQueries } from '../../shared/session/session';
import { useAccountText } from './text';

/** The latest 20 sign-ins and failed attempts. Keyed under the session: signing out drops it. */
export const signInHistoryQuery = () =>
  queryOptions({
    queryKey: [...sessionQueries.all(), 'sign-in-history'],
    queryFn: ({ signal }) => api.call('listSignIns', { signal }),
  });

export function reportSignIn(code: string): Promise<Acknowledgement> {
  return api.call('reportSignIn', { body: { code } });
}

/**
 * "This wasn't me". The server ends every session of the account, this browser's too: its tokens
 * and every cached answer are forgotten here, as on sign-out (as useCancelEmailChange does).
 */
export function useReportSignIn() {
  const text = useAccountText();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: reportSignIn,
    meta: {
      toasts: {
        pending: text('toast.securingAccount'),
        success: text('toast.everyDeviceSignedOut'),
      },
    },
    onSuccess: () => {
      tokenStore.clear();
      queryClient.removeQueries();
    },
  });
}
