import type { MessageKey } from '@kegel/contract/i18n/catalogs';
import { LinguiContext } from '@lingui/react';
import { useContext } from 'react';

import '../i18n/common-text';
import { i18n } from '../i18n/i18n';

/**
 * The `common` texts for what must draw even without the app's providers around it (an error
 * page, whatever failed above it; the toasts' container): as useCommonText gives them inside the
 * providers, following a change of language, and straight from i18n outside them.
 */
export function useCommonTextAnywhere(): (key: MessageKey<'common'>) => string {
  const translate = useContext(LinguiContext)?._ ?? i18n._.bind(i18n);
  return (key) => translate(`common.${key}`);
}
