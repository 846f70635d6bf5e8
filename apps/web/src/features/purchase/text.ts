import type { MessageKey } from '@kegel/contract/i18n/catalogs';
import * as catalog from 'virtual:catalog/purchase';

import { defineTexts } from '../../shared/i18n/define-texts';
import { i18n } from '../../shared/i18n/i18n';
import { translate } from '../../shared/i18n/translate';

/** The checkout's texts (`purchase` in the catalogs): plans, the order, its completion. */
export const usePurchaseText = defineTexts<'purchase'>(catalog);

/**
 * The same texts outside a component (plan-terms.ts), in the language active when called: the
 * component that shows the result uses usePurchaseText too, so it draws again on a change.
 */
export function purchaseText(
  key: MessageKey<'purchase'>,
  values?: Record<string, unknown>,
): string {
  return translate(i18n, `purchase.${key}`, values);
}
