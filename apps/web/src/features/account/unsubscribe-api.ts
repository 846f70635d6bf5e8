// The unsubscribe link of the mails before premium ends: one click on its page turns them off
// for the member the signed token names, signed in or not (the API's one-click POST, RFC 8058).
import { useMutation } from '@tanstack/react-query';

import { api } from '../../shared/http/api';

export function unsubscribe(token: string) {
  return api.call('unsubscribe', { query: { token } });
}

export function useUnsubscribe() {
  return useMutation({
    mutationFn: unsubscribe,
    meta: { toasts: { pending: 'Turning reminders off', success: 'Reminders turned off' } },
  });
}
