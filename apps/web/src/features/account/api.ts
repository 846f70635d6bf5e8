import {
  apiPaths,
  type ChangeEmailRequest,
  type ChangePasswordRequest,
  type VerifyEmailRequest,
} from '@kegel/contract';

import { api } from '../../shared/http/api';

export function changeEmail(request: ChangeEmailRequest): Promise<{ message: string }> {
  return api.post(apiPaths.changeEmail, request);
}

export function changePassword(request: ChangePasswordRequest): Promise<{ message: string }> {
  return api.post(apiPaths.changePassword, request);
}

export function verifyEmail(request: VerifyEmailRequest): Promise<{ message: string }> {
  return api.post(apiPaths.verifyEmail, request);
}

/** The password-reset link, which also sets a first password on a Google or Apple account. */
export function emailPasswordLink(email: string): Promise<{ message: string }> {
  return api.post(apiPaths.resetPassword, { email });
}
