import {
  apiPaths,
  type CheckoutSession,
  type PlansResponse,
  type StartCheckoutRequest,
  type StartCheckoutResponse,
} from '@kegel/contract';
import { queryOptions, useMutation } from '@tanstack/react-query';

import { api } from '../../shared/http/api';

/** Plans and checkout sessions, cached like every answer (an hour, without retries). */
export const purchaseQueries = {
  all: () => ['purchase'] as const,
  plans: () =>
    queryOptions({
      queryKey: [...purchaseQueries.all(), 'plans'],
      queryFn: ({ signal }) => api.get<PlansResponse>(apiPaths.plans, { signal }),
    }),
  checkoutSession: (sessionId: string) =>
    queryOptions({
      queryKey: [...purchaseQueries.all(), 'session', sessionId],
      queryFn: ({ signal }) =>
        api.get<CheckoutSession>(apiPaths.checkoutSession(sessionId), { signal }),
    }),
};

export function startCheckout(request: StartCheckoutRequest): Promise<StartCheckoutResponse> {
  return api.post(apiPaths.startCheckout, request);
}

export function useStartCheckout() {
  return useMutation({
    mutationFn: startCheckout,
    meta: { toasts: { pending: 'Preparing...', success: 'Payment link has been generated' } },
  });
}
