import * as catalog from 'virtual:catalog/auth';

import { defineTexts } from '../../shared/i18n/define-texts';

/** The sign-in, register and password-reset pages' texts (the `auth` namespace). */
export const useAuthText = defineTexts<'auth'>(catalog);
