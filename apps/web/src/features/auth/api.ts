import {
  apiPaths,
  type LoginRequest,
  type RegisterRequest,
  type ResetPasswordConfirmRequest,
  type TokenPair,
} from '@kegel/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';

import { api, tokenStore } from '../../shared/http/api';
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

/**
 * Signs in (spec §4): stores both tokens and loads the profile afresh. The auth layout sees the
 * tokens and takes the person on to `r` or /dashboard.
 */
export function useLogin(): (request: LoginRequest) => Promise<void> {
  const queryClient = useQueryClient();
  return useCallback(
    async (request: LoginRequest) => {
      const pair = await api.post<TokenPair>(apiPaths.login, request);
      queryClient.removeQueries({ queryKey: sessionQueries.all() });
      tokenStore.write(pair);
      await queryClient.prefetchQuery(sessionQueries.profile());
    },
    [queryClient],
  );
}
