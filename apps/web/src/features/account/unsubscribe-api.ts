// The unsubscribe link of the mails before premium ends: one click on its page turns them off
// for the member the signed token names, signed in or not (the API's one-click POST, RFC 8058).
import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '../../shared/http/api';
import { sessionQueries } from '../../shared/session/session';
import { useEmailLinksText } from './email-links-text';

export function unsubscribe(token: string) {
  return api.call('unsubscribe', { query: { token } });
}

export function useUnsubscribe() {
  const text = useEmailLinksText();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: unsubscribe,
    meta: {
      toasts: { pending: text('toast.turningRemindersOff'), success: text('toast.remindersOff') },
    },
    // Signed in here, Account Settings (one click away) must not show reminders still on from
    // its cache.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionQueries.all() }),
  });
}
