import {
  type Acknowledgement,
  type AppleVerifyTokenRequest,
  type LoginRequest,
  type MfaVerifyRequest,
  type PasskeyAuthenticationResponse,
  type PasskeyRequestOptions,
  type RegisteredUser,
  type RegisterRequest,
  type ResetPasswordConfirmRequest,
  type SignInResponse,
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
 * How a sign-in ended: signed in, or (two-step sign-in on) waiting for a code, with the token
 * that the code step sends back with it.
 */
export type SignInOutcome = { kind: 'signed-in' } | { kind: 'code-needed'; mfaToken: string };

/**
 * Signs in with whatever call returns the token pair: stores both tokens and loads the profile
 * afresh, so the success toast appears with the member's data at hand. The page then takes the
 * person on (useGoOnAfterSignIn). An account with two-step sign-in answers a code step instead of
 * tokens: the outcome says so, and its progress toast just goes.
 */
function useSignIn<Request>(
  exchange: (request: Request) => Promise<SignInResponse>,
  pending: string,
  { showOnField }: SendingForm = {},
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: authMutationKeys.signIn(),
    mutationFn: async (request: Request): Promise<SignInOutcome> => {
      const answer = await exchange(request);
      // Checked by hand, not with a contract helper: the app's entry loads this file, and a value
      // import from the contract would bring zod into every page's first load.
      if ('mfaToken' in answer) return { kind: 'code-needed', mfaToken: answer.mfaToken };
      queryClient.removeQueries({ queryKey: sessionQueries.all() });
      tokenStore.write(answer);
      await queryClient.prefetchQuery(sessionQueries.profile());
      return { kind: 'signed-in' };
    },
    meta: {
      toasts: { pending, success: 'Successfully authenticated' },
      isStepOnTheWay: (outcome) => (outcome as SignInOutcome).kind === 'code-needed',
      showOnField,
    },
  });
}

function loginWithPassword(request: LoginRequest): Promise<SignInResponse> {
  return api.call('login', { body: request });
}

function loginWithGoogleCode(code: string): Promise<SignInResponse> {
  return api.call('signInWithGoogle', { body: { code, clientType: 'WEB' } });
}

function loginWithAppleToken(request: AppleVerifyTokenRequest): Promise<SignInResponse> {
  return api.call('signInWithApple', { body: request });
}

function verifyTwoStep(request: MfaVerifyRequest): Promise<SignInResponse> {
  return api.call('verifyTwoStep', { body: request });
}

/** The code step of a sign-in: the code (or a recovery code) with the sign-in's token. */
export function useVerifyTwoStep({ showOnField }: SendingForm = {}) {
  return useSignIn(verifyTwoStep, 'Checking the code', { showOnField });
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
