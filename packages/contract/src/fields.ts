// The contract is written with zod/mini, the functional build of zod 4 (`.check(z.minLength(…))`
// rather than `.min(…)`): the web's sign-in and checkout forms validate with these schemas on
// their first page, and mini weighs about a quarter of classic zod there. Its objects also never
// compile a parser with `new Function`, which the web's Content-Security-Policy forbids. The
// schemas are the same to the API (zod's core parses both) and to the OpenAPI document.
import * as z from 'zod/mini';

import { fieldMessages } from './field-messages';

/**
 * The longest path parameter a call takes (a Stripe Checkout Session id may run to 255
 * characters; our own ids are far shorter). The API's router refuses a longer one (414), so
 * every parameter declares it: the document never allows what the router refuses.
 */
export const PATH_PARAMETER_MAX_LENGTH = 255;

export const PASSWORD_MIN_LENGTH = 8;
/** Long enough for any passphrase, short enough that hashing it stays cheap. */
export const PASSWORD_MAX_LENGTH = 256;
/** RFC 5321 caps a forward path at 256 octets including the angle brackets: 254 for the address. */
export const EMAIL_MAX_LENGTH = 254;
/**
 * RFC 5321 caps the local part (before the @) at 64 octets: mail servers may refuse a longer
 * one, so an account or a purchase made with it could never receive its mail.
 */
export const EMAIL_LOCAL_PART_MAX_LENGTH = 64;

function messageWhenMissing(missing: string, wrongType: string) {
  return (issue: { input?: unknown }): string => (issue.input === undefined ? missing : wrongType);
}

/**
 * An email address as typed by a person: surrounding spaces are dropped, case is kept (the API
 * compares addresses without regard to case), CR/LF and other control characters are refused by
 * the email format itself, and so is a local part over 64 characters.
 */
export const EmailSchema = z.pipe(
  z
    .string({ error: messageWhenMissing(fieldMessages.emailRequired, fieldMessages.emailInvalid) })
    .check(
      z.trim(),
      z.minLength(1, fieldMessages.emailRequired),
      z.maxLength(EMAIL_MAX_LENGTH, fieldMessages.emailTooLong),
    ),
  z.email(fieldMessages.emailInvalid).check(
    z.refine((email) => email.indexOf('@') <= EMAIL_LOCAL_PART_MAX_LENGTH, {
      error: fieldMessages.emailInvalid,
      // Only for an address of the right form: one that is not says 'Invalid email' once.
      when: (payload) => payload.issues.length === 0,
    }),
  ),
);

/** A password being chosen: 8 to 256 characters, anything allowed, never trimmed or truncated. */
export const NewPasswordSchema = z
  .string({ error: messageWhenMissing(fieldMessages.required, fieldMessages.passwordRequired) })
  .check(
    z.minLength(PASSWORD_MIN_LENGTH, fieldMessages.passwordTooShort),
    z.maxLength(PASSWORD_MAX_LENGTH, fieldMessages.passwordTooLong),
    // Counted as it is stored (NFKC, see the API's password hasher): four accents typed on a Mac
    // arrive as eight code units but are four characters.
    z.refine(
      (password) =>
        password.length < PASSWORD_MIN_LENGTH ||
        password.normalize('NFKC').length >= PASSWORD_MIN_LENGTH,
      fieldMessages.passwordTooShort,
    ),
  );

/** A password being presented (login, confirming a change): only non-empty and bounded. */
export const CurrentPasswordSchema = z
  .string({
    error: messageWhenMissing(fieldMessages.passwordRequired, fieldMessages.passwordRequired),
  })
  .check(
    z.minLength(1, fieldMessages.passwordRequired),
    z.maxLength(PASSWORD_MAX_LENGTH, fieldMessages.passwordTooLong),
  );

/** A one-time code from an emailed link: opaque, URL-safe, bounded. */
export const EmailedCodeSchema = z
  .string({ error: fieldMessages.required })
  .check(z.minLength(1, fieldMessages.required), z.maxLength(512, fieldMessages.required));

/** Instants travel as ISO 8601 strings in UTC, e.g. `2026-11-23T10:00:00.000Z`. */
export const IsoDateTimeSchema = z.iso.datetime();
