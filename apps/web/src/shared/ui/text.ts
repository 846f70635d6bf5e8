import * as catalog from 'virtual:catalog/forms';

import { defineTexts } from '../i18n/define-texts';

/** The field components' own texts (the `forms` namespace): the password toggle and the like. */
export const useFormsText = defineTexts<'forms'>(catalog);
