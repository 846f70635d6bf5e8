// Sign-ins the member can see (Account Settings' history). Reporting one ("This wasn't me") is
// email-links-api.ts's: the page of that link carries none of Account Settings.
import { queryOptions } from '@tanstack/react-query';

import { api } from '../../shared/http/api';
import { sessionQueries } from '../../shared/session/session';

/** The latest 20 sign-ins and failed attempts. Keyed under the session: signing out drops it. */
export const signInHistoryQuery = () =>
  queryOptions({
    queryKey: [...sessionQueries.all(), 'sign-in-history'],
    queryFn: ({ signal }) => api.call('listSignIns', { signal }),
  });
