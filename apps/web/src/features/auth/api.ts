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
import type { MessageKey } from '@kegel/contract/i18n/catalogs';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { api, tokenStore } from '../../shared/http/api';
import { freshness, type SendingForm } from '../../shared/query/query-client';
import { sessionQueries } from '../../shared/session/session';
import { authMutationKeys } from './mutation-keys';
import { useAuthText } from './text';

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
  pending: MessageKey<'auth'>,
  { showOnField }: SendingForm = {},
) {
  const queryClient = useQueryClient();
  const text = useAuthText();
  return useMutation({
    mutationKey: authMutationKeys.signIn(),
    mutationFn: async (request: Request): Promise<SignInOutcome> => {
      const answer = await exchange(request);
      // Checked by hand, not with a contract helper: a value import from the contract would bring
      // zod along wherever this file goes.
      if ('mfaToken' in answer) return { kind: 'code-needed', mfaToken: answer.mfaToken };
      queryClient.removeQueries({ queryKey: sessionQueries.all() });
      tokenStore.write(answer);
      await queryClient.prefetchQuery(sessionQueries.profile());
      return { kind: 'signed-in' };
    },
    meta: {
      toasts: { pending: text(pending), success: text('signedIn') },
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
  return useSignIn(verifyTwoStep, 'checkingCode', { showOnField });
}

/** A fresh challenge for signing in with a passkey (single use, five minutes). */
export function passkeySignInOptions(): Promise<PasskeyRequestOptions> {
  return api.call('passkeySignInOptions', {});
}

function loginWithPasskey(response: PasskeyAuthenticationResponse): Promise<TokenPair> {
  return api.call('signInWithPasskey', { body: { response } });
}

export function useLogin() {
  return useSignIn(loginWithPassword, 'signingIn');
}

export function useGoogleLogin() {
  return useSignIn(loginWithGoogleCode, 'signingInWithGoogle');
}

export function useAppleLogin() {
  return useSignIn(loginWithAppleToken, 'signingInWithApple');
}

/** Signs in with what the browser's passkey dialog (or the email field's autofill) answered. */
export function usePasskeyLogin() {
  return useSignIn(loginWithPasskey, 'signingInWithPasskey');
}

export function useRegister({ showOnField }: SendingForm = {}) {
  const text = useAuthText();
  return useMutation({
    mutationFn: register,
    meta: {
      toasts: { pending: text('creatingAccount'), success: text('accountCreated') },
      showOnField,
    },
  });
}

export function useRequestPasswordReset() {
  const text = useAuthText();
  return useMutation({
    mutationFn: requestPasswordReset,
    meta: { toasts: { pending: text('requestingReset'), success: text('resetLinkSent') } },
  });
}

export function useConfirmPasswordReset({ showOnField }: SendingForm = {}) {
  const text = useAuthText();
  return useMutation({
    mutationFn: confirmPasswordReset,
    meta: {
      toasts: { pending: text('confirmingPassword'), success: text('passwordChanged') },
      showOnField,
    },
  });
}
