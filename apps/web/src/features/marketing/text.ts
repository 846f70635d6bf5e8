import * as catalog from 'virtual:catalog/marketing';

import { defineTexts } from '../../shared/i18n/define-texts';

/** The marketing page's texts (`marketing` in the catalogs). */
export const useMarketingText = defineTexts<'marketing'>(catalog);
