import {
  apiPaths,
  type CheckoutSession,
  type PlansResponse,
  type StartCheckoutRequest,
  type StartCheckoutResponse,
} from '@kegel/contract';
import { queryOptions } from '@tanstack/react-query';

import { api } from '../../shared/http/api';

const HOUR = 60 * 60 * 1000;

/** Spec §7/§9: plans and a checkout session are cached for an hour, without retries. */
export const purchaseQueries = {
  all: () => ['purchase'] as const,
  plans: () =>
    queryOptions({
      queryKey: [...purchaseQueries.all(), 'plans'],
      queryFn: ({ signal }) => api.get<PlansResponse>(apiPaths.plans, { signal }),
      staleTime: HOUR,
      gcTime: HOUR,
      retry: false,
    }),
  checkoutSession: (sessionId: string) =>
    queryOptions({
      queryKey: [...purchaseQueries.all(), 'session', sessionId],
      queryFn: ({ signal }) =>
        api.get<CheckoutSession>(apiPaths.checkoutSession(sessionId), { signal }),
      staleTime: HOUR,
      gcTime: HOUR,
      retry: false,
    }),
};

export function startCheckout(request: StartCheckoutRequest): Promise<StartCheckoutResponse> {
  return api.post(apiPaths.startCheckout, request);
}
