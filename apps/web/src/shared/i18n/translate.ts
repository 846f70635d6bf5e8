import { valuesKeepingBackslashes, withBackslashes } from '@kegel/contract/i18n';
import type { I18n } from '@lingui/core';

/**
 * Message `id` filled with `values`, backslashes kept as they are in the catalog and in the
 * values (contract/i18n/backslashes.ts: Lingui would decode `\x41` in a typed value).
 */
export function translate(
  translator: Pick<I18n, '_'>,
  id: string,
  values?: Record<string, unknown>,
): string {
  return withBackslashes(translator._(id, valuesKeepingBackslashes(values)));
}
