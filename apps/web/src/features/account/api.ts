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
} from '@kegel/contract';
import { startRegistration } from '@simplewebauthn/browser';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';

import { paths } from '../../config/paths';
import { passkeyDialogError } from '../../shared/browser/passkey-dialog';
import { api } from '../../shared/http/api';
import '../../shared/i18n/contract-messages';
import { localizeMessage } from '../../shared/i18n/i18n';
import type { SendingForm } from '../../shared/query/query-client';
import { sessionQueries } from '../../shared/session/session';
import type { AccountDeletedState } from './email-links-api';
import { useAccountText } from './text';

export function changeEmail(request: ChangeEmailRequest): Promise<Acknowledgement> {
  return api.call('requestEmailChange', { body: request });
}

export function changePassword(request: ChangePasswordRequest): Promise<Acknowledgement> {
  return api.call('changePassword', { body: request });
}

export function deleteAccount(request: DeleteAccountRequest): Promise<Acknowledgement> {
  return api.call('deleteAccount', { body: request });
}

/** The password-reset link, which also sets a first password on a Google or Apple account. */
export function emailPasswordLink(email: string): Promise<Acknowledgement> {
  return api.call('requestPasswordReset', { body: { email } });
}

export function useChangeEmail({ showOnField }: SendingForm = {}) {
  const text = useAccountText();
  return useMutation({
    mutationFn: changeEmail,
    meta: {
      toasts: { pending: text('toast.changingEmail'), success: text('toast.emailChangeSent') },
      showOnField,
    },
  });
}

export function useChangePassword({ showOnField }: SendingForm = {}) {
  const text = useAccountText();
  return useMutation({
    mutationFn: changePassword,
    meta: {
      toasts: { pending: text('toast.changingPassword'), success: text('toast.passwordChanged') },
      showOnField,
    },
  });
}

export function useEmailPasswordLink() {
  const text = useAccountText();
  return useMutation({
    mutationFn: emailPasswordLink,
    meta: { toasts: { pending: text('toast.sendingLink'), success: text('toast.linkSent') } },
  });
}

/** Where the member is signed in. Keyed under the session: signing out drops it. */
export const sessionListQuery = () =>
  queryOptions({
    queryKey: [...sessionQueries.all(), 'signed-in-devices'],
    queryFn: ({ signal }) => api.call('listSessions', { signal }),
  });

export function useEndSession() {
  const text = useAccountText();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.call('endSession', { params: { id } }),
    meta: { toasts: { pending: text('toast.signingOut'), success: text('toast.signedOut') } },
    onSettled: () => queryClient.invalidateQueries({ queryKey: sessionListQuery().queryKey }),
  });
}

export function useEndOtherSessions() {
  const text = useAccountText();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('endOtherSessions', {}),
    meta: {
      toasts: { pending: text('toast.signingOut'), success: text('toast.signedOutOthers') },
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
  const text = useAccountText();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: addPasskey,
    meta: {
      toasts: { pending: text('toast.addingPasskey'), success: text('toast.passkeyAdded') },
      showOnField,
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: passkeyListQuery().queryKey }),
  });
}

export function useRenamePasskey() {
  const text = useAccountText();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, name }: { id: string; name: string }) =>
      api.call('renamePasskey', { params: { id }, body: { name } }),
    meta: {
      toasts: { pending: text('toast.renamingPasskey'), success: text('toast.passkeyRenamed') },
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: passkeyListQuery().queryKey }),
  });
}

/** Removes a passkey; `code` while two-step sign-in is on (a code from the app, or a recovery code). */
export function useRemovePasskey({ showOnField }: SendingForm = {}) {
  const text = useAccountText();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, code }: { id: string; code?: string }) =>
      api.call('removePasskey', { params: { id }, body: code ? { code } : undefined }),
    meta: {
      toasts: { pending: text('toast.removingPasskey'), success: text('toast.passkeyRemoved') },
      showOnField,
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: passkeyListQuery().queryKey }),
  });
}

/**
 * The addresses an email change left that can still take the account back, and until when.
 * Keyed under the session: confirming a new address (useVerifyEmail, email-links-api.ts) reads
 * it again.
 */
export const emailChangeUndoQuery = () =>
  queryOptions({
    queryKey: [...sessionQueries.all(), 'email-change-undo'],
    queryFn: ({ signal }) => api.call('listEmailChangeUndoWindows', { signal }),
  });

export function useCloseEmailChangeUndo() {
  const text = useAccountText();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('closeEmailChangeUndoWindows', {}),
    meta: {
      toasts: {
        pending: text('toast.closing'),
        success: localizeMessage(emailChangeUndoMessages.closed),
      },
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: emailChangeUndoQuery().queryKey }),
  });
}

/**
 * Deletes the account, then goes to the page that says it is gone. The server ends every session,
 * so this browser's tokens are dead; that page forgets them (`useForgetSession`) once it is on
 * screen. Not here: forgetting them while Account Settings is still shown would make the member
 * area send the person to the sign-in page, and the router shows a new page in a transition,
 * after its navigation has resolved, so no order of the two steps here would be safe.
 */
export function useDeleteAccount({ showOnField }: SendingForm = {}) {
  const text = useAccountText();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: deleteAccount,
    meta: {
      toasts: { pending: text('toast.deletingAccount'), success: text('toast.accountDeleted') },
      showOnField,
    },
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
  const text = useAccountText();
  const refreshProfile = useProfileRefresh();
  return useMutation({
    mutationFn: (request: TwoStepConfirmRequest) => api.call('confirmTwoStep', { body: request }),
    meta: {
      toasts: { pending: text('toast.checkingCode'), success: text('toast.twoStepOn') },
      showOnField,
    },
    onSuccess: refreshProfile,
  });
}

export function useTurnOffTwoStep({ showOnField }: SendingForm = {}) {
  const text = useAccountText();
  const refreshProfile = useProfileRefresh();
  return useMutation({
    mutationFn: (request: TwoStepDisableRequest) => api.call('turnOffTwoStep', { body: request }),
    meta: {
      toasts: { pending: text('toast.turningTwoStepOff'), success: text('toast.twoStepOff') },
      showOnField,
    },
    onSuccess: refreshProfile,
  });
}

export function useRenewRecoveryCodes({ showOnField }: SendingForm = {}) {
  const text = useAccountText();
  return useMutation({
    mutationFn: (request: RenewRecoveryCodesRequest) =>
      api.call('renewRecoveryCodes', { body: request }),
    meta: {
      toasts: {
        pending: text('toast.makingRecoveryCodes'),
        success: text('toast.recoveryCodesMade'),
      },
      showOnField,
    },
  });
}
