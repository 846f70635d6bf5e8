import {
  type Acknowledgement,
  type AppleVerifyTokenRequest,
  type LoginRequest,
  type PasskeyAuthenticationResponse,
  type PasskeyRequestOptions,
  type RegisteredUser,
  type RegisterRequest,
  type ResetPasswordConfirmRequest,
  type TokenPair,
} from '@kegel/contract';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { api, tokenStore } from '../../shared/http/api';
import { freshness, type SendingForm } from '../../shared/query/query-client';
import { sessionQueries } from '../../shared/session/session';

export function register(request: RegisterRequest): Promise<RegisteredUser> {
  return api.call('register', { body: request });
}

export function requestPasswordReset(email: string): Promise<Acknowledgement> {
  return api.call('requestPasswordReset', { body: { email } });
}

export function confirmPasswordReset(
  request: ResetPasswordConfirmRequest,
): Promise<Acknowledgement> {
  return api.call('confirmPasswordReset', { body: request });
}

/** Which social providers the server offers, and the scripts that start them. */
export const socialQueries = {
  providers: () =>
    queryOptions({
      queryKey: ['auth', 'social-providers'],
      queryFn: ({ signal }) => api.call('listSocialProviders', { signal }),
    }),
  /**
   * A single-use nonce for the next Apple sign-in, fetched ahead (the popup must open during the
   * click) and renewed well before its ten minutes run out.
   */
  appleNonce: () =>
    queryOptions({
      queryKey: ['auth', 'apple-nonce'],
      queryFn: () => api.call('issueAppleNonce'),
      ...freshness.singleUse,
      refetchInterval: 4 * 60 * 1000,
    }),
};

export const authMutationKeys = {
  /** Every way of signing in, so the auth layout can tell one is finishing. */
  signIn: () => ['auth', 'sign-in'] as const,
};

/**
 * Signs in with whatever call returns the token pair: stores both tokens and loads the profile
 * afresh, so the success toast appears with the member's data at hand. The page then takes the
 * person on (useGoOnAfterSignIn).
 */
function useSignIn<Request>(exchange: (request: Request) => Promise<TokenPair>, pending: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: authMutationKeys.signIn(),
    mutationFn: async (request: Request) => {
      const pair = await exchange(request);
      queryClient.removeQueries({ queryKey: sessionQueries.all() });
      tokenStore.write(pair);
      await queryClient.prefetchQuery(sessionQueries.profile());
    },
    meta: { toasts: { pending, success: 'Successfully authenticated' } },
  });
}

function loginWithPassword(request: LoginRequest): Promise<TokenPair> {
  return api.call('login', { body: request });
}

function loginWithGoogleCode(code: string): Promise<TokenPair> {
  return api.call('signInWithGoogle', { body: { code, clientType: 'WEB' } });
}

function loginWithAppleToken(request: AppleVerifyTokenRequest): Promise<TokenPair> {
  return api.call('signInWithApple', { body: request });
}

/** A fresh challenge for signing in with a passkey (single use, five minutes). */
export function passkeySignInOptions(): Promise<PasskeyRequestOptions> {
  return api.call('passkeySignInOptions', {});
}

function loginWithPasskey(response: PasskeyAuthenticationResponse): Promise<TokenPair> {
  return api.call('signInWithPasskey', { body: { response } });
}

export function useLogin() {
  return useSignIn(loginWithPassword, 'Authenticating');
}

export function useGoogleLogin() {
  return useSignIn(loginWithGoogleCode, 'Authenticating via Google');
}

export function useAppleLogin() {
  return useSignIn(loginWithAppleToken, 'Authenticating via Apple');
}

/** Signs in with what the browser's passkey dialog (or the email field's autofill) answered. */
export function usePasskeyLogin() {
  return useSignIn(loginWithPasskey, 'Authenticating with your passkey');
}

export function useRegister({ showOnField }: SendingForm = {}) {
  return useMutation({
    mutationFn: register,
    meta: {
      toasts: {
        pending: 'Creating account',
        success: 'Account has been created successfully! Log in to your account.',
      },
      showOnField,
    },
  });
}

export function useRequestPasswordReset() {
  return useMutation({
    mutationFn: requestPasswordReset,
    meta: { toasts: { pending: 'Resetting password', success: 'Check your inbox for the link' } },
  });
}

export function useConfirmPasswordReset({ showOnField }: SendingForm = {}) {
  return useMutation({
    mutationFn: confirmPasswordReset,
    meta: {
      toasts: { pending: 'Confirming password', success: 'Password changed successfully' },
      showOnField,
    },
  });
}
