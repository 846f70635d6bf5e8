import * as catalog from 'virtual:catalog/premium';

import { defineTexts } from '../i18n/define-texts';

/**
 * The premium texts (`premium` in the catalogs): the status block and the Purchase History here,
 * and the member's premium pages (features/premium), which use this hook too. Here rather than in
 * the feature, so the support desk, which shows the status and history, loads the namespace
 * without any of the feature's code.
 */
export const usePremiumText = defineTexts<'premium'>(catalog);
