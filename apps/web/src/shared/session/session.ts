import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useSyncExternalStore } from 'react';

import { api, tokenStore } from '../http/api';

/**
 * Who is signed in: the tokens (localStorage) and the profile (cached like every answer, an hour
 * without retries; refreshed after login and after email verification). Shared by every feature.
 */
export const sessionQueries = {
  all: () => ['session'] as const,
  profile: () =>
    queryOptions({
      queryKey: [...sessionQueries.all(), 'profile'],
      queryFn: ({ signal }) => api.call('readProfile', { signal }),
    }),
  /**
   * The member's purchases, web and App Store, newest first: the purchase history lists them and
   * Account Settings says what deleting the account does to the ones still running.
   */
  purchases: () =>
    queryOptions({
      queryKey: [...sessionQueries.all(), 'subscriptions'],
      queryFn: ({ signal }) => api.call('listPurchases', { signal }),
    }),
};

/** True while both tokens are stored (re-renders when they change, in any tab). */
export function useHasTokens(): boolean {
  return useSyncExternalStore(
    (listener) => tokenStore.subscribe(listener),
    () => tokenStore.read() !== null,
    () => false,
  );
}

export function useProfile() {
  const hasTokens = useHasTokens();
  return useQuery({ ...sessionQueries.profile(), enabled: hasTokens });
}

/** Ends the session: tells the server, then forgets tokens and every cached answer. */
export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const pair = tokenStore.read();
      if (pair) {
        // Best effort: even if the server cannot be reached, this browser forgets the session.
        await api
          .call('logout', { body: { refreshToken: pair.refreshToken } })
          .catch(() => undefined);
      }
      tokenStore.clear();
      queryClient.clear();
    },
  });
}

/**
 * A purchase changes the premium end date and the purchase list, which are cached for an hour.
 * The tab that sees the purchase complete refreshes its own cache and tells the other
 * tabs of this site (the checkout opens in a new one), so the tab that started the purchase does
 * not go on showing the old status.
 */
const ACCOUNT_CHANNEL_NAME = 'kegel-coach.account';

function openAccountChannel(): BroadcastChannel | undefined {
  return typeof BroadcastChannel === 'undefined'
    ? undefined
    : new BroadcastChannel(ACCOUNT_CHANNEL_NAME);
}

export function useRefreshAccountEverywhere(): () => void {
  const queryClient = useQueryClient();
  return useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: sessionQueries.all() });
    const channel = openAccountChannel();
    channel?.postMessage('account-changed');
    channel?.close();
  }, [queryClient]);
}

/** Calls `listener` when another tab reports an account change; returns the unsubscribe. */
export function onAccountChangedElsewhere(listener: () => void): () => void {
  const channel = openAccountChannel();
  if (!channel) return () => {};
  channel.onmessage = () => listener();
  return () => channel.close();
}
