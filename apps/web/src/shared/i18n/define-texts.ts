import type { MessageKey, Namespace } from '@kegel/contract/i18n/catalogs';
import { useLingui } from '@lingui/react';
import { useMemo } from 'react';

import { type NamespaceModule, registerNamespace } from './i18n';
import { translate } from './translate';

export interface Texts<N extends Namespace> {
  /** The text of `key` in the page's language, `{placeholders}` and plurals filled from `values`. */
  (key: MessageKey<N>, values?: Record<string, unknown>): string;
  /** For RichText (rich-text.tsx): the namespace its keys are in. */
  readonly namespace: N;
}

/**
 * A feature's texts, namespace `N` of the catalogs: `export const useAuthText = defineTexts<'auth'>(
 * catalog)` in the feature's text.ts, then `const text = useAuthText(); text('signIn')` in its
 * components. Defining registers the namespace as its module loads, so the router fetches its
 * other languages before the page first draws; the hook's function changes with the language, so
 * what uses it draws again.
 */
export function defineTexts<N extends Namespace>(catalog: NamespaceModule): () => Texts<N> {
  registerNamespace(catalog);
  const namespace = catalog.namespace as N;
  return function useTexts(): Texts<N> {
    const { _ } = useLingui();
    // `_` is new with each language: the texts are too.
    return useMemo(
      () =>
        Object.assign(
          (key: MessageKey<N>, values?: Record<string, unknown>) =>
            translate({ _ }, `${namespace}.${key}`, values),
          { namespace },
        ),
      [_],
    );
  };
}
