import * as catalog from 'virtual:catalog/auth';
import type { MessageKey } from '@kegel/contract/i18n/catalogs';

import { defineTexts } from '../../shared/i18n/define-texts';
import { i18n } from '../../shared/i18n/i18n';

/** The sign-in, register and password-reset pages' texts (the `auth` namespace). */
export const useAuthText = defineTexts<'auth'>(catalog);

/**
 * The same texts for code outside the components (the providers' popups): in the language shown
 * when it is called. Defining `useAuthText` above has made the namespace known.
 */
export function authText(key: MessageKey<'auth'>): string {
  return i18n._(`auth.${key}`);
}
