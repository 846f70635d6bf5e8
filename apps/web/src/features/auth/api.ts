import {
  type AppleVerifyTokenRequest,
  apiPaths,
  type LoginRequest,
  type RegisterRequest,
  type ResetPasswordConfirmRequest,
  type SignInNonceResponse,
  type SocialProvidersResponse,
  type TokenPair,
} from '@kegel/contract';
import { queryOptions, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';

import { api, tokenStore } from '../../shared/http/api';
import { freshness } from '../../shared/query/query-client';
import { sessionQueries } from '../../shared/session/session';

export function register(request: RegisterRequest): Promise<{ id: string; email: string }> {
  return api.post(apiPaths.register, request);
}

export function requestPasswordReset(email: string): Promise<{ message: string }> {
  return api.post(apiPaths.resetPassword, { email });
}

export function confirmPasswordReset(
  request: ResetPasswordConfirmRequest,
): Promise<{ message: string }> {
  return api.post(apiPaths.resetPasswordConfirm, request);
}

/** Which social providers the server offers, and the scripts that start them. */
export const socialQueries = {
  providers: () =>
    queryOptions({
      queryKey: ['auth', 'social-providers'],
      queryFn: ({ signal }) =>
        api.get<SocialProvidersResponse>(apiPaths.socialProviders, { signal }),
    }),
  /**
   * A single-use nonce for the next Apple sign-in, fetched ahead (the popup must open during the
   * click) and renewed well before its ten minutes run out.
   */
  appleNonce: () =>
    queryOptions({
      queryKey: ['auth', 'apple-nonce'],
      queryFn: () => api.post<SignInNonceResponse>(apiPaths.appleNonce, {}),
      ...freshness.singleUse,
      refetchInterval: 4 * 60 * 1000,
    }),
};

/**
 * Signs in (spec §4) with whatever call returns the token pair: stores both tokens and loads the
 * profile afresh. The auth layout sees the tokens and takes the person on to `r` or /dashboard.
 */
function useSignIn<Request>(
  exchange: (request: Request) => Promise<TokenPair>,
): (request: Request) => Promise<void> {
  const queryClient = useQueryClient();
  return useCallback(
    async (request: Request) => {
      const pair = await exchange(request);
      queryClient.removeQueries({ queryKey: sessionQueries.all() });
      tokenStore.write(pair);
      await queryClient.prefetchQuery(sessionQueries.profile());
    },
    [queryClient, exchange],
  );
}

const loginWithPassword = (request: LoginRequest) => api.post<TokenPair>(apiPaths.login, request);
const loginWithGoogleCode = (code: string) =>
  api.post<TokenPair>(apiPaths.googleVerifyToken, { code, clientType: 'WEB' });
const loginWithAppleToken = (request: AppleVerifyTokenRequest) =>
  api.post<TokenPair>(apiPaths.appleVerifyToken, request);

export function useLogin(): (request: LoginRequest) => Promise<void> {
  return useSignIn(loginWithPassword);
}

export function useGoogleLogin(): (code: string) => Promise<void> {
  return useSignIn(loginWithGoogleCode);
}

export function useAppleLogin(): (request: AppleVerifyTokenRequest) => Promise<void> {
  return useSignIn(loginWithAppleToken);
}
