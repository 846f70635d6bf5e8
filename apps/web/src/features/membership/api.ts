import { apiPaths, type CustomerPortalResponse, type SubscriptionsResponse } from '@kegel/contract';
import { queryOptions } from '@tanstack/react-query';

import { api } from '../../shared/http/api';
import { sessionQueries } from '../../shared/session/session';

const HOUR = 60 * 60 * 1000;

/**
 * Stripe calls a portal session short-lived and asks for one when the person means to use it, so
 * the link is reused for five minutes, not the hour spec §7 gives the other answers.
 */
const PORTAL_LINK_LIFETIME = 5 * 60 * 1000;

/**
 * The member's purchases and billing portal. Keyed under the session so that signing out, or a
 * completed purchase, drops them with the profile.
 */
export const membershipQueries = {
  subscriptions: () =>
    queryOptions({
      queryKey: [...sessionQueries.all(), 'subscriptions'],
      queryFn: ({ signal }) => api.get<SubscriptionsResponse>(apiPaths.subscriptions, { signal }),
      staleTime: HOUR,
      gcTime: HOUR,
      retry: false,
    }),
  customerPortal: () =>
    queryOptions({
      queryKey: [...sessionQueries.all(), 'customer-portal'],
      queryFn: ({ signal }) => api.get<CustomerPortalResponse>(apiPaths.customerPortal, { signal }),
      staleTime: PORTAL_LINK_LIFETIME,
      gcTime: PORTAL_LINK_LIFETIME,
      retry: false,
    }),
};
