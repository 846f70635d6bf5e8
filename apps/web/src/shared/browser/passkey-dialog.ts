// The browser's passkey dialogs (WebAuthn), through @simplewebauthn/browser, and what their
// failures mean to a person: the dialog throws DOMExceptions named after the spec's cases, which
// the library wraps in its WebAuthnError. Nothing here imports the library itself: the sign-in
// page loads it once it draws (`loadPasskeyDialogs`), outside its first JavaScript.
import type * as SimpleWebAuthn from '@simplewebauthn/browser';
import type { WebAuthnError } from '@simplewebauthn/browser';

import { useCommonText } from '../i18n/common-text';

export type PasskeyDialogs = typeof SimpleWebAuthn;

let loading: Promise<PasskeyDialogs> | undefined;
let loaded: PasskeyDialogs | undefined;

/** The library, fetched the first time a page needs it; a failed load can be tried again. */
export function loadPasskeyDialogs(): Promise<PasskeyDialogs> {
  loading ??= import('@simplewebauthn/browser').then(
    (library) => (loaded = library),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The library if it has loaded already: to end its dialog while the page goes away. */
export function passkeyDialogsIfLoaded(): PasskeyDialogs | undefined {
  return loaded;
}

/** Whether this browser has WebAuthn at all: the library's own test, without the library. */
export function browserSupportsPasskeyDialogs(): boolean {
  return typeof globalThis.PublicKeyCredential === 'function';
}

/**
 * The library's WebAuthnError, told by its shape: its class is the library's, which this module
 * does not load (a DOMException's `code` is a number, the library's a string).
 */
function isWebAuthnError(error: unknown): error is WebAuthnError {
  return error instanceof Error && typeof (error as Partial<WebAuthnError>).code === 'string';
}

/** Another ceremony took over (or the page left): nothing for the person to read. */
export function isPasskeyDialogSuperseded(error: unknown): boolean {
  return isWebAuthnError(error) && error.code === 'ERROR_CEREMONY_ABORTED';
}

/** A dialog's failure as the message a toast shows, in the page's language. */
export function passkeyDialogError(error: unknown): Error {
  if (isWebAuthnError(error)) {
    if (error.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') {
      return new Error(useCommonText.now('passkeyAlreadyOnDevice'));
    }
    // Cancelled, timed out, or no passkey chosen: the browser does not say which, on purpose.
    if (error.name === 'NotAllowedError' || error.code === 'ERROR_CEREMONY_ABORTED') {
      return new Error(useCommonText.now('passkeyDialogClosed'));
    }
  }
  return new Error(useCommonText.now('passkeyNotUsable'));
}
