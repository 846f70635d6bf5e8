import type { StartCheckoutRequest, StartCheckoutResponse } from '@kegel/contract';
import { queryOptions, useMutation } from '@tanstack/react-query';

import { api } from '../../shared/http/api';
import { usePurchaseText } from './text';

/** Plans and checkout sessions, cached like every answer (an hour, without retries). */
export const purchaseQueries = {
  all: () => ['purchase'] as const,
  plans: () =>
    queryOptions({
      queryKey: [...purchaseQueries.all(), 'plans'],
      queryFn: ({ signal }) => api.call('listPlans', { signal }),
    }),
  checkoutSession: (sessionId: string) =>
    queryOptions({
      queryKey: [...purchaseQueries.all(), 'session', sessionId],
      queryFn: ({ signal }) =>
        api.call('describeCheckout', { params: { session: sessionId }, signal }),
    }),
};

export function startCheckout(request: StartCheckoutRequest): Promise<StartCheckoutResponse> {
  return api.call('startCheckout', { body: request });
}

export function useStartCheckout() {
  const text = usePurchaseText();
  return useMutation({
    mutationFn: startCheckout,
    meta: { toasts: { pending: text('checkoutPending'), success: text('checkoutReady') } },
  });
}
