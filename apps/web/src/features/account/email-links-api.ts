// The writes of the pages the account's emails link to (confirm a new address, cancel an email
// change, report a sign-in) and of the page a deletion ends on: apart from api.ts, so that those
// small pages, opened from a mailbox, carry neither Account Settings' code nor its texts.
import type { Acknowledgement, VerifyEmailRequest } from '@kegel/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';

import { api, tokenStore } from '../../shared/http/api';
import { sessionQueries } from '../../shared/session/session';
import { useEmailLinksText } from './email-links-text';

export function verifyEmail(request: VerifyEmailRequest): Promise<Acknowledgement> {
  return api.call('confirmEmailChange', { body: request });
}

/** "This was not me", the link in the notice mailed to the old address. */
export function cancelEmailChange(code: string): Promise<Acknowledgement> {
  return api.call('cancelEmailChange', { body: { code } });
}

/** Confirms the new address from the emailed link; the profile is read again with it. */
export function useVerifyEmail() {
  const text = useEmailLinksText();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: verifyEmail,
    meta: {
      toasts: { pending: text('toast.verifyingEmail'), success: text('toast.emailChanged') },
    },
    onSuccess: async () => {
      // The page's first read of the profile may still be on its way, started beside this call
      // and answered with the old address. A query without data yet is not cancelled by an
      // invalidation, which would wait for that very answer: cancel it first, then read again.
      await queryClient.cancelQueries({ queryKey: sessionQueries.all() });
      await queryClient.invalidateQueries({ queryKey: sessionQueries.all() });
    },
  });
}

/**
 * Cancels (or undoes) an email change from the notice's link. The server ends every session of
 * the account, so the tokens this browser holds are dead too: they and every cached answer (the
 * header's profile among them) are forgotten here, as on sign-out, rather than left to pretend
 * someone is still signed in until the next call fails.
 */
export function useCancelEmailChange() {
  const text = useEmailLinksText();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: cancelEmailChange,
    meta: {
      toasts: {
        pending: text('toast.cancellingEmailChange'),
        success: text('toast.emailChangeCancelled'),
      },
    },
    onSuccess: () => {
      tokenStore.clear();
      queryClient.removeQueries();
    },
  });
}

/** What the page after a deletion is told: where the confirmation went, and what to forget. */
export interface AccountDeletedState {
  email?: string;
  /** The member confirmed that his App Store subscription goes on (it is not cancelled). */
  keepsAppStoreSubscription?: boolean;
  /** This browser still holds the deleted account's tokens: the page forgets them on arrival. */
  forgetSession?: boolean;
}

/**
 * Forgets a session the server has ended (a deleted account's): its tokens and every cached
 * answer, as on sign-out. The answers go first: forgetting the tokens re-renders the header,
 * which must then find no profile.
 */
export function useForgetSession(): () => void {
  const queryClient = useQueryClient();
  return useCallback(() => {
    queryClient.removeQueries();
    tokenStore.clear();
  }, [queryClient]);
}

export function reportSignIn(code: string): Promise<Acknowledgement> {
  return api.call('reportSignIn', { body: { code } });
}

/**
 * "This wasn't me", from the notice mailed when the account signs in from a new device or network
 * (ADR 019). The server ends every session of the account, this browser's too: its tokens and
 * every cached answer are forgotten here, as on sign-out (as useCancelEmailChange does).
 */
export function useReportSignIn() {
  const text = useEmailLinksText();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: reportSignIn,
    meta: {
      toasts: {
        pending: text('toast.securingAccount'),
        success: text('toast.everyDeviceSignedOut'),
      },
    },
    onSuccess: () => {
      tokenStore.clear();
      queryClient.removeQueries();
    },
  });
}
