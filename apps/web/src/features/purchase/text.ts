import * as catalog from 'virtual:catalog/purchase';

import { defineTexts } from '../../shared/i18n/define-texts';

/** The checkout's texts (`purchase` in the catalogs): plans, the order, its completion. */
export const usePurchaseText = defineTexts<'purchase'>(catalog);
