import { type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';

import { freshness } from '../../shared/query/query-client';
import {
  sessionQueries,
  useHasTokens,
  useRefreshAccountEverywhere,
} from '../../shared/session/session';
import { purchaseQueries } from './api';

const POLL_EVERY_MS = 2_000;
const POLL_ATTEMPTS = 15;

/** The premium end date as one read of the profile found it: `undefined` when the read failed. */
type EndDateRead = string | null | undefined;

/** One wait for the end date to move: its first read, its latest, and how many came after the first. */
interface EndDateWatch {
  first: EndDateRead;
  latest: EndDateRead;
  rereads: number;
}

function hasMoved(watch: EndDateWatch): boolean {
  return watch.latest !== watch.first;
}

function isStillWaiting(watch: EndDateWatch): boolean {
  return !hasMoved(watch) && watch.rereads < POLL_ATTEMPTS;
}

/** Reads the profile from the server, into its cache; a failed read is no end date at all. */
async function readEndDate(queryClient: QueryClient): Promise<EndDateRead> {
  const profile = await queryClient
    .fetchQuery({ ...sessionQueries.profile(), ...freshness.fromServer })
    .catch(() => undefined);
  return profile?.subscriptionEndDate;
}

/**
 * After a payment, premium changes when Stripe's webhook reaches the server, which may be a
 * moment after Stripe sent the person back here. Every tab of the site is told at once (their
 * hour-old status is out of date either way), and, for a signed-in buyer, the profile is
 * re-read for up to half a minute until its end date moves, then every tab is told again.
 */
export function usePremiumRefreshAfterPurchase(isMemberPurchase: boolean): void {
  const queryClient = useQueryClient();
  const hasTokens = useHasTokens();
  const refreshAccountEverywhere = useRefreshAccountEverywhere();
  const isWatching = isMemberPurchase && hasTokens;

  // Told again when the buyer signs in or out on the way: the account every tab shows changed.
  useEffect(() => {
    refreshAccountEverywhere();
  }, [isMemberPurchase, hasTokens, refreshAccountEverywhere]);

  useQuery({
    // A wait that stops (the buyer signs out) is forgotten at once, so one that starts again, after
    // a sign-in, compares with a first read of its own.
    queryKey: [...purchaseQueries.all(), 'premium-end-watch', isWatching],
    queryFn: async ({ queryKey }): Promise<EndDateWatch> => {
      const previous = queryClient.getQueryData<EndDateWatch>(queryKey);
      const latest = await readEndDate(queryClient);
      const watch = previous
        ? { first: previous.first, latest, rereads: previous.rereads + 1 }
        : { first: latest, latest, rereads: 0 };
      if (hasMoved(watch)) refreshAccountEverywhere();
      return watch;
    },
    ...freshness.whileInUse,
    enabled: isWatching,
    // The interval starts again whenever the watch changes, so each re-read comes 2 s after the
    // previous answer. It runs in a background tab too: the buyer may go back to the tab the
    // purchase started from while this one waits.
    refetchInterval: ({ state: { data } }) =>
      data && isStillWaiting(data) ? POLL_EVERY_MS : false,
    refetchIntervalInBackground: true,
  });
}
