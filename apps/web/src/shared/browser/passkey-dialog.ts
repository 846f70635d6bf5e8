// The browser's passkey dialogs (WebAuthn), through @simplewebauthn/browser, and what their
// failures mean to a person: the dialog throws DOMExceptions named after the spec's cases.
import { WebAuthnError } from '@simplewebauthn/browser';

/** Another ceremony took over (or the page left): nothing for the person to read. */
export function isPasskeyDialogSuperseded(error: unknown): boolean {
  return error instanceof WebAuthnError && error.code === 'ERROR_CEREMONY_ABORTED';
}

/** A dialog's failure as the message a toast shows. */
export function passkeyDialogError(error: unknown): Error {
  if (error instanceof WebAuthnError) {
    if (error.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') {
      return new Error('This device already holds a passkey for your account.');
    }
    // Cancelled, timed out, or no passkey chosen: the browser does not say which, on purpose.
    if (error.name === 'NotAllowedError' || error.code === 'ERROR_CEREMONY_ABORTED') {
      return new Error('The passkey dialog was closed before it finished.');
    }
  }
  return new Error('This browser could not use a passkey here.');
}
