import type { FieldPath, FieldValues, UseFormReturn } from 'react-hook-form';

import { ApiError } from '../../shared/http/api-client';

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
  const name = entries.find(([, messages]) => messages.includes(error.message))?.[0];
  if (name === undefined) return false;
  form.setError(name, { type: 'server', message: error.message }, { shouldFocus: true });
  return true;
}
