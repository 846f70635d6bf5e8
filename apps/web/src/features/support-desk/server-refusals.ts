import type { FieldPath, FieldValues, UseFormReturn } from 'react-hook-form';

import { ApiError } from '../../shared/http/api-client';
// The contract's texts in the page's language (localizeMessage): the desk shows some itself.
import '../../shared/i18n/contract-messages';
import { localizeMessage } from '../../shared/i18n/i18n';

/**
 * Whether the server's `message` is the contract's text `english`: the API answers in the page's
 * language, so an operator reading German gets it in German, and a test's fake server in English.
 */
export function isContractMessage(message: string, english: string): boolean {
  return message === english || message === localizeMessage(english);
}

/** `messages` (the contract's English texts) and each in the page's language, for a form's list. */
export function inEitherLanguage(messages: readonly string[]): string[] {
  return messages.flatMap((english) => [english, localizeMessage(english)]);
}

/**
 * The desk's refusals that belong under a field but come with another status than a 400 (the
 * support team's day limit is a 403, a refund larger than what is left a 409): `showOnField` of
 * useContractForm handles 400s; this one, the rest. True when the message went under its field.
 */
export function showRefusalOnField<Values extends FieldValues>(
  form: UseFormReturn<Values, unknown, unknown>,
  error: Error,
  byField: Partial<Record<FieldPath<Values>, readonly string[]>>,
): boolean {
  if (!(error instanceof ApiError)) return false;
  const entries = Object.entries(byField) as Array<[FieldPath<Values>, readonly string[]]>;
  const name = entries.find(([, messages]) =>
    messages.some((english) => isContractMessage(error.message, english)),
  )?.[0];
  if (name === undefined) return false;
  form.setError(
    name,
    { type: 'server', message: localizeMessage(error.message) },
    { shouldFocus: true },
  );
  return true;
}
