// Two-step sign-in with an authenticator app (TOTP) and recovery codes (ADR 018): the calls'
// schemas, for the API and the web alike; what they answer in words is in messages.ts.
import * as z from 'zod/mini';

import { twoStepMessages } from './messages';

export const RECOVERY_CODE_COUNT = 10;

/** Spaces and dashes are the reader's help, not the code's: "123 456" is 123456. */
function withoutSeparators(value: string): string {
  return value.replace(/[\s-]/g, '');
}

/** A code from the authenticator app: 6 digits, typed with or without a space. */
export const TwoStepCodeSchema = z.pipe(
  z
    .string({ error: twoStepMessages.codeRequired })
    .check(z.trim(), z.minLength(1, twoStepMessages.codeRequired), z.maxLength(16)),
  z.pipe(
    z.transform(withoutSeparators),
    z.string().check(z.regex(/^\d{6}$/, twoStepMessages.codeMalformed)),
  ),
);

/**
 * A recovery code as typed: case, spaces and dashes do not matter (shown as `abcd-efgh-jkmn-pqrs`).
 */
export const RecoveryCodeSchema = z.pipe(
  z
    .string({ error: twoStepMessages.recoveryCodeRequired })
    .check(z.trim(), z.minLength(1, twoStepMessages.recoveryCodeRequired), z.maxLength(64)),
  z.transform((value: string) => withoutSeparators(value).toLowerCase()),
);

/**
 * The second step asked for again before a change of credentials (password, email, turning
 * two-step sign-in off): a code from the app, or one of the recovery codes, in one field. Six
 * digits are read as an app's code, anything else as a recovery code.
 */
export const SecondFactorCodeSchema = z
  .string({ error: twoStepMessages.codeRequired })
  .check(z.trim(), z.minLength(1, twoStepMessages.codeRequired), z.maxLength(64));

/** `POST /auth/mfa/totp/setup`: the secret to put in the app, as text and as a QR code's URL. */
export const TwoStepSetupResponseSchema = z.object({
  /** Base32, for typing into an app by hand. */
  secret: z.string(),
  /** `otpauth://totp/...`: what the QR code holds. */
  otpauthUrl: z.string(),
});
export type TwoStepSetupResponse = z.infer<typeof TwoStepSetupResponseSchema>;

export const TwoStepConfirmRequestSchema = z.object({ code: TwoStepCodeSchema });
export type TwoStepConfirmRequest = z.infer<typeof TwoStepConfirmRequestSchema>;

/** Ten codes, each good for one sign-in: shown this once, never readable again. */
export const RecoveryCodesResponseSchema = z.object({ recoveryCodes: z.array(z.string()) });
export type RecoveryCodesResponse = z.infer<typeof RecoveryCodesResponseSchema>;

const codeOrRecoveryCode = {
  code: z.optional(TwoStepCodeSchema),
  recoveryCode: z.optional(RecoveryCodeSchema),
};

/** Exactly one of `code` and `recoveryCode`; the message goes under the code field. */
const oneOfTheCodes = z.refine<{ code?: string; recoveryCode?: string }>(
  (input) => (input.code === undefined) !== (input.recoveryCode === undefined),
  { message: twoStepMessages.codeRequired, path: ['code'] },
);

/** `POST /auth/mfa/totp/disable`: a current code from the app, or a recovery code. */
export const TwoStepDisableRequestSchema = z.object(codeOrRecoveryCode).check(oneOfTheCodes);
export type TwoStepDisableRequest = z.infer<typeof TwoStepDisableRequestSchema>;

/** `POST /auth/mfa/recovery-codes`: new codes for a current code; the old ones stop working. */
export const RenewRecoveryCodesRequestSchema = z.object({ code: TwoStepCodeSchema });
export type RenewRecoveryCodesRequest = z.infer<typeof RenewRecoveryCodesRequestSchema>;

/** A sign-in that was right so far and now owes a code: no tokens yet. */
export const MfaRequiredSchema = z.object({
  mfaRequired: z.literal(true),
  /** Single use, valid 5 minutes, for `POST /auth/mfa/verify`. */
  mfaToken: z.string(),
});
export type MfaRequired = z.infer<typeof MfaRequiredSchema>;

/** `POST /auth/mfa/verify`: the second step of a sign-in. */
export const MfaVerifyRequestSchema = z
  .object({
    mfaToken: z.string().check(z.minLength(1), z.maxLength(512)),
    ...codeOrRecoveryCode,
  })
  .check(oneOfTheCodes);
export type MfaVerifyRequest = z.infer<typeof MfaVerifyRequestSchema>;

/** The web's code step of a sign-in: the app's code, or (switched to) a recovery code. */
export const TwoStepCodeFormSchema = z.object({ code: TwoStepCodeSchema });
export const RecoveryCodeFormSchema = z.object({ recoveryCode: RecoveryCodeSchema });

/** The web's one field for "a code from the app, or a recovery code" (turning it off). */
export const SecondFactorFormSchema = z.object({ code: SecondFactorCodeSchema });

/** Six digits are a code from the app; anything else typed there is a recovery code. */
export function isAuthenticatorCode(code: string): boolean {
  return /^\d{6}$/.test(withoutSeparators(code));
}
