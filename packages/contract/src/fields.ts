import { z } from 'zod';

/**
 * Every user-facing validation message, written once. The API answers with them and the web
 * forms show them under the field, so both sides always agree word for word.
 */
export const fieldMessages = {
  emailRequired: 'Email is required',
  emailInvalid: 'Invalid email',
  emailTooLong: 'Email is too long',
  passwordRequired: 'Password is required',
  passwordTooShort: 'Password is too short',
  passwordTooLong: 'Password is too long',
  /** Answered by the API alone (400): the list of common passwords never ships to the browser. */
  passwordTooCommon: 'This password is too common. Please choose a less guessable one.',
  /** Answered by the API alone (400), where Have I Been Pwned's range API is asked. */
  passwordBreached: 'This password has appeared in a data breach. Please choose another one.',
  passwordsDoNotMatch: 'Passwords do not match',
  planRequired: 'Plan is required',
  required: 'Required',
} as const;

/**
 * The refusals of a new password that only the API can make: a form shows them under its new
 * password field (useContractForm's `serverMessages`), not in a toast.
 */
export const newPasswordServerMessages = [
  fieldMessages.passwordTooCommon,
  fieldMessages.passwordBreached,
] as const;

export const PASSWORD_MIN_LENGTH = 8;
/** Long enough for any passphrase, short enough that hashing it stays cheap. */
export const PASSWORD_MAX_LENGTH = 256;
/** RFC 5321 caps a forward path at 256 octets including the angle brackets: 254 for the address. */
export const EMAIL_MAX_LENGTH = 254;

function messageWhenMissing(missing: string, wrongType: string) {
  return (issue: { input?: unknown }): string => (issue.input === undefined ? missing : wrongType);
}

/**
 * An email address as typed by a person: surrounding spaces are dropped, case is kept (the API
 * compares addresses without regard to case), CR/LF and other control characters are refused by
 * the email format itself.
 */
export const EmailSchema = z
  .string({ error: messageWhenMissing(fieldMessages.emailRequired, fieldMessages.emailInvalid) })
  .trim()
  .min(1, fieldMessages.emailRequired)
  .max(EMAIL_MAX_LENGTH, fieldMessages.emailTooLong)
  .pipe(z.email(fieldMessages.emailInvalid));

/** A password being chosen: 8 to 256 characters, anything allowed, never trimmed or truncated. */
export const NewPasswordSchema = z
  .string({ error: messageWhenMissing(fieldMessages.required, fieldMessages.passwordRequired) })
  .min(PASSWORD_MIN_LENGTH, fieldMessages.passwordTooShort)
  .max(PASSWORD_MAX_LENGTH, fieldMessages.passwordTooLong)
  // Counted as it is stored (NFKC, see the API's password hasher): four accents typed on a Mac
  // arrive as eight code units but are four characters.
  .refine(
    (password) =>
      password.length < PASSWORD_MIN_LENGTH ||
      password.normalize('NFKC').length >= PASSWORD_MIN_LENGTH,
    fieldMessages.passwordTooShort,
  );

/** A password being presented (login, confirming a change): only non-empty and bounded. */
export const CurrentPasswordSchema = z
  .string({
    error: messageWhenMissing(fieldMessages.passwordRequired, fieldMessages.passwordRequired),
  })
  .min(1, fieldMessages.passwordRequired)
  .max(PASSWORD_MAX_LENGTH, fieldMessages.passwordTooLong);

/** A one-time code from an emailed link: opaque, URL-safe, bounded. */
export const EmailedCodeSchema = z
  .string({ error: fieldMessages.required })
  .min(1, fieldMessages.required)
  .max(512, fieldMessages.required);

/** Instants travel as ISO 8601 strings in UTC, e.g. `2026-11-23T10:00:00.000Z`. */
export const IsoDateTimeSchema = z.iso.datetime();
