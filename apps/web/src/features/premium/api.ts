import { queryOptions } from '@tanstack/react-query';

import { api } from '../../shared/http/api';
import { freshness } from '../../shared/query/query-client';
import { sessionQueries } from '../../shared/session/session';

/**
 * The member's purchases and billing portal. Keyed under the session so that signing out, or a
 * completed purchase, drops them with the profile.
 */
export const premiumQueries = {
  subscriptions: sessionQueries.purchases,
  customerPortal: () =>
    queryOptions({
      queryKey: [...sessionQueries.all(), 'customer-portal'],
      queryFn: ({ signal }) => api.call('openCustomerPortal', { signal }),
      // Stripe's portal sessions are short-lived: a link is not kept for the usual hour.
      ...freshness.shortLived,
    }),
};
