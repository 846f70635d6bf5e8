import {
  type Acknowledgement,
  type PasskeyItem,
  type ChangeEmailRequest,
  type ChangePasswordRequest,
  type DeleteAccountRequest,
  emailChangeUndoMessages,
  type RenewRecoveryCodesRequest,
  type TwoStepConfirmRequest,
  type TwoStepDisableRequest,
  type VerifyEmailRequest,
} from '@kegel/contract';
import { startRegistration } from '@simplewebauthn/browser';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useNavigate } from 'react-router';

import { paths } from '../../config/paths';
import { passkeyDialogError } from '../../shared/browser/passkey-dialog';
import { api, tokenStore } from '../../shared/http/api';
import type { SendingForm } from '../../shared/query/query-client';
import { sessionQueries } from '../../shared/session/session';

export function changeEmail(request: ChangeEmailRequest): Promise<Acknowledgement> {
  return api.call('requestEmailChange', { body: request });
}

export function changePassword(request: ChangePasswordRequest): Promise<Acknowledgement> {
  return api.call('changePassword', { body: request });
}

export function verifyEmail(request: VerifyEmailRequest): Promise<Acknowledgement> {
  return api.call('confirmEmailChange', { body: request });
}

/** "This was not me", the link in the notice mailed to the old address. */
export function cancelEmailChange(code: string): Promise<Acknowledgement> {
  return api.call('cancelEmailChange', { body: { code } });
}

export function deleteAccount(request: DeleteAccountRequest): Promise<Acknowledgement> {
  return api.call('deleteAccount', { body: request });
}

/** The password-reset link, which also sets a first password on a Google or Apple account. */
export function emailPasswordLink(email: string): Promise<Acknowledgement> {
  return api.call('requestPasswordReset', { body: { email } });
}

export function useChangeEmail({ showOnField }: SendingForm = {}) {
  return useMutation({
    mutationFn: changeEmail,
    meta: {
      toasts: { pending: 'Changing email', success: 'Confirmation email sent successfully' },
      showOnField,
    },
  });
}

export function useChangePassword({ showOnField }: SendingForm = {}) {
  return useMutation({
    mutationFn: changePassword,
    meta: {
      toasts: { pending: 'Changing password', success: 'Password changed successfully' },
      showOnField,
    },
  });
}

/** Confirms the new address from the emailed link; the profile is read again with it. */
export function useVerifyEmail() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: verifyEmail,
    meta: { toasts: { pending: 'Verifying email', success: 'Email successfully changed' } },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: sessionQueries.all() });
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
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: cancelEmailChange,
    meta: { toasts: { pending: 'Cancelling email change', success: 'Email change cancelled' } },
    onSuccess: () => {
      tokenStore.clear();
      queryClient.removeQueries();
    },
  });
}

export function useEmailPasswordLink() {
  return useMutation({
    mutationFn: emailPasswordLink,
    meta: { toasts: { pending: 'Sending link', success: 'Link sent. Please check your inbox.' } },
  });
}

/** Where the member is signed in. Keyed under the session: signing out drops it. */
export const sessionListQuery = () =>
  queryOptions({
    queryKey: [...sessionQueries.all(), 'signed-in-devices'],
    queryFn: ({ signal }) => api.call('listSessions', { signal }),
  });

export function useEndSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.call('endSession', { params: { id } }),
    meta: { toasts: { pending: 'Signing out', success: 'Signed out' } },
    onSettled: () => queryClient.invalidateQueries({ queryKey: sessionListQuery().queryKey }),
  });
}

export function useEndOtherSessions() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('endOtherSessions', {}),
    meta: {
      toasts: { pending: 'Signing out', success: 'Signed out of all other devices' },
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: sessionListQuery().queryKey }),
  });
}

/** The member's passkeys. Keyed under the session: signing out drops it. */
export const passkeyListQuery = () =>
  queryOptions({
    queryKey: [...sessionQueries.all(), 'passkeys'],
    queryFn: ({ signal }) => api.call('listPasskeys', { signal }),
  });

/**
 * Adds a passkey: the server's options, the browser's dialog (the person picks where to keep it
 * and confirms with a fingerprint, face or PIN), then the server checks and keeps it. `code`
 * while two-step sign-in is on: a passkey signs in with no code, so adding one takes a code.
 */
async function addPasskey({ code }: { code?: string } = {}): Promise<PasskeyItem> {
  const optionsJSON = await api.call('passkeyRegistrationOptions', { body: code ? { code } : {} });
  const response = await startRegistration({ optionsJSON }).catch((error: unknown) => {
    throw passkeyDialogError(error);
  });
  return api.call('registerPasskey', { body: { response } });
}

export function useAddPasskey({ showOnField }: SendingForm = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: addPasskey,
    meta: { toasts: { pending: 'Adding passkey', success: 'Passkey added' }, showOnField },
    onSettled: () => queryClient.invalidateQueries({ queryKey: passkeyListQuery().queryKey }),
  });
}

export function useRenamePasskey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, name }: { id: string; name: string }) =>
      api.call('renamePasskey', { params: { id }, body: { name } }),
    meta: { toasts: { pending: 'Renaming passkey', success: 'Passkey renamed' } },
    onSettled: () => queryClient.invalidateQueries({ queryKey: passkeyListQuery().queryKey }),
  });
}

/** Removes a passkey; `code` while two-step sign-in is on (a code from the app, or a recovery code). */
export function useRemovePasskey({ showOnField }: SendingForm = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, code }: { id: string; code?: string }) =>
      api.call('removePasskey', { params: { id }, body: code ? { code } : undefined }),
    meta: { toasts: { pending: 'Removing passkey', success: 'Passkey removed' }, showOnField },
    onSettled: () => queryClient.invalidateQueries({ queryKey: passkeyListQuery().queryKey }),
  });
}

/**
 * The addresses an email change left that can still take the account back, and until when.
 * Keyed under the session: confirming a new address (useVerifyEmail) reads it again.
 */
export const emailChangeUndoQuery = () =>
  queryOptions({
    queryKey: [...sessionQueries.all(), 'email-change-undo'],
    queryFn: ({ signal }) => api.call('listEmailChangeUndoWindows', { signal }),
  });

export function useCloseEmailChangeUndo() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('closeEmailChangeUndoWindows', {}),
    meta: { toasts: { pending: 'Closing', success: emailChangeUndoMessages.closed } },
    onSettled: () => queryClient.invalidateQueries({ queryKey: emailChangeUndoQuery().queryKey }),
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
 * Deletes the account, then goes to the page that says it is gone. The server ends every session,
 * so this browser's tokens are dead; that page forgets them (`useForgetSession`) once it is on
 * screen. Not here: forgetting them while Account Settings is still shown would make the member
 * area send the person to the sign-in page, and the router shows a new page in a transition,
 * after its navigation has resolved, so no order of the two steps here would be safe.
 */
export function useDeleteAccount({ showOnField }: SendingForm = {}) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: deleteAccount,
    meta: { toasts: { pending: 'Deleting account', success: 'Account deleted' }, showOnField },
    onSuccess: async (_data, request) => {
      const state: AccountDeletedState = {
        email: queryClient.getQueryData(sessionQueries.profile().queryKey)?.email,
        keepsAppStoreSubscription: request.keepsAppStoreSubscription === true,
        forgetSession: true,
      };
      await navigate(paths.account.deleted.getHref(), { replace: true, state });
    },
  });
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

/** Two-step sign-in's writes all change the profile's `twoStepEnabled`, or may: read it again. */
function useProfileRefresh(): () => Promise<void> {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: sessionQueries.profile().queryKey });
}

/** A new authenticator secret (and its QR code's URL): nothing changes until confirmed. */
export function useSetUpTwoStep() {
  return useMutation({ mutationFn: () => api.call('setUpTwoStep', {}) });
}

export function useConfirmTwoStep({ showOnField }: SendingForm = {}) {
  const refreshProfile = useProfileRefresh();
  return useMutation({
    mutationFn: (request: TwoStepConfirmRequest) => api.call('confirmTwoStep', { body: request }),
    meta: {
      toasts: { pending: 'Checking the code', success: 'Two-step sign-in is on' },
      showOnField,
    },
    onSuccess: refreshProfile,
  });
}

export function useTurnOffTwoStep({ showOnField }: SendingForm = {}) {
  const refreshProfile = useProfileRefresh();
  return useMutation({
    mutationFn: (request: TwoStepDisableRequest) => api.call('turnOffTwoStep', { body: request }),
    meta: {
      toasts: { pending: 'Turning two-step sign-in off', success: 'Two-step sign-in is off' },
      showOnField,
    },
    onSuccess: refreshProfile,
  });
}

export function useRenewRecoveryCodes({ showOnField }: SendingForm = {}) {
  return useMutation({
    mutationFn: (request: RenewRecoveryCodesRequest) =>
      api.call('renewRecoveryCodes', { body: request }),
    meta: {
      toasts: { pending: 'Making new recovery codes', success: 'New recovery codes made' },
      showOnField,
    },
  });
}
