import * as catalog from 'virtual:catalog/account';

import { defineTexts } from '../../shared/i18n/define-texts';

/** Account Settings' texts and those of the pages the account's emails link to. */
export const useAccountText = defineTexts<'account'>(catalog);
