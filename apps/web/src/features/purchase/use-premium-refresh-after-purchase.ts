import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';

import { freshness } from '../../shared/query/query-client';
import {
  sessionQueries,
  useHasTokens,
  useRefreshAccountEverywhere,
} from '../../shared/session/session';

const POLL_EVERY_MS = 2_000;
const POLL_ATTEMPTS = 15;

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

  useEffect(() => {
    refreshAccountEverywhere();
    if (!isMemberPurchase || !hasTokens) return;
    let isStopped = false;
    const readEnd = async () =>
      (
        await queryClient
          .fetchQuery({ ...sessionQueries.profile(), ...freshness.fromServer })
          .catch(() => undefined)
      )?.subscriptionEndDate;

    void (async () => {
      const before = await readEnd();
      for (let attempt = 0; attempt < POLL_ATTEMPTS && !isStopped; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
        if (isStopped) return;
        if ((await readEnd()) !== before) {
          refreshAccountEverywhere();
          return;
        }
      }
    })();
    return () => {
      isStopped = true;
    };
  }, [isMemberPurchase, hasTokens, queryClient, refreshAccountEverywhere]);
}
