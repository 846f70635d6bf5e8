// The validation messages, in a module of their own: they carry no zod, so a page can name them
// (a form's server messages) without building the schemas, and a page that shows only the
// API's other answers (messages.ts) does not carry them.

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
  typeDeleteToConfirm: 'Type DELETE to confirm',
  passkeyNameTooLong: 'Use at most 64 characters',
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
