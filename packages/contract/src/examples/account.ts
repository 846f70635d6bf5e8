// Examples of the Account calls (call-example.ts says what an example is; story.ts, who Alex is).
// The acknowledgements the API writes in its routes, not in the contract's messages, are copied
// here word for word (apps/api/src/modules/auth/routes.ts and email-change-undo.ts).
import { authMessages, signInNoticeMessages } from '../messages';
import type { CallExamples } from './call-example';
import {
  AUTHENTICATOR_CODE,
  EMAIL_CHANGE_CANCEL_CODE,
  EMAIL_CHANGE_CODE,
  MEMBER_EMAIL,
  MEMBER_ID,
  MEMBER_NEW_EMAIL,
  MEMBER_NEW_PASSWORD,
  MEMBER_PASSWORD,
  MFA_TOKEN,
  NOT_ME_CODE,
  PASSWORD_RESET_CODE,
  REFRESH_TOKEN,
  RENEWED_ACCESS_TOKEN,
  RENEWED_REFRESH_TOKEN,
} from './story';

export const accountExamples: Pick<
  CallExamples,
  | 'register'
  | 'login'
  | 'refresh'
  | 'logout'
  | 'requestPasswordReset'
  | 'confirmPasswordReset'
  | 'changePassword'
  | 'requestEmailChange'
  | 'confirmEmailChange'
  | 'cancelEmailChange'
  | 'reportSignIn'
> = {
  register: {
    body: { email: MEMBER_EMAIL, password: MEMBER_PASSWORD },
    response: { id: MEMBER_ID, email: MEMBER_EMAIL },
  },
  // Two-step sign-in is on for Alex: the password step answers the call for a code.
  login: {
    body: { email: MEMBER_EMAIL, password: MEMBER_PASSWORD },
    response: { mfaRequired: true, mfaToken: MFA_TOKEN },
  },
  refresh: {
    body: { refreshToken: REFRESH_TOKEN },
    response: { accessToken: RENEWED_ACCESS_TOKEN, refreshToken: RENEWED_REFRESH_TOKEN },
  },
  logout: {
    body: { refreshToken: RENEWED_REFRESH_TOKEN },
    response: { message: 'Signed out' },
  },
  requestPasswordReset: {
    body: { email: MEMBER_EMAIL },
    response: { message: authMessages.resetRequested },
  },
  confirmPasswordReset: {
    body: { email: MEMBER_EMAIL, code: PASSWORD_RESET_CODE, newPassword: MEMBER_NEW_PASSWORD },
    response: { message: 'Password changed' },
  },
  changePassword: {
    body: {
      oldPassword: MEMBER_PASSWORD,
      newPassword: MEMBER_NEW_PASSWORD,
      code: AUTHENTICATOR_CODE,
    },
    response: { message: 'Password changed successfully' },
  },
  requestEmailChange: {
    body: { newEmail: MEMBER_NEW_EMAIL, password: MEMBER_PASSWORD, code: AUTHENTICATOR_CODE },
    response: { message: 'Confirmation email sent successfully' },
  },
  confirmEmailChange: {
    body: { code: EMAIL_CHANGE_CODE, newEmail: MEMBER_NEW_EMAIL },
    response: { message: 'Email successfully changed' },
  },
  cancelEmailChange: {
    body: { code: EMAIL_CHANGE_CANCEL_CODE },
    response: {
      message:
        'The email change was cancelled and every device was signed out. Choose a new password to sign in again.',
    },
  },
  reportSignIn: {
    body: { code: NOT_ME_CODE },
    response: { message: signInNoticeMessages.secured },
  },
};
