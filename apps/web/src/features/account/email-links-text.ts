import * as catalog from 'virtual:catalog/accountEmailLinks';

import { defineTexts } from '../../shared/i18n/define-texts';

/** The texts of the pages the account's emails link to, and of the page a deletion ends on. */
export const useEmailLinksText = defineTexts<'accountEmailLinks'>(catalog);
