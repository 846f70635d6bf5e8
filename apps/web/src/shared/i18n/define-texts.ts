import type { MessageKey, Namespace } from '@kegel/contract/i18n/catalogs';
import type { I18n } from '@lingui/core';
import { useLingui } from '@lingui/react';
import { useMemo } from 'react';

import { i18n, type NamespaceModule, registerNamespace } from './i18n';
import { translate } from './translate';

export interface Texts<N extends Namespace> {
  /** The text of `key` in the page's language, `{placeholders}` and plurals filled from `values`. */
  (key: MessageKey<N>, values?: Record<string, unknown>): string;
  /** For RichText (rich-text.tsx): the namespace its keys are in. */
  readonly namespace: N;
}

export interface TextsHook<N extends Namespace> {
  /** The texts in a component: it draws again when the language changes. */
  (): Texts<N>;
  /**
   * The same texts for code outside the components (an error a popup's flow throws, a plan's
   * terms): in the language shown when it is called. What shows the result uses the hook, so it
   * draws again on a change.
   */
  readonly now: Texts<N>;
}

/**
 * A feature's texts, namespace `N` of the catalogs: `export const useAuthText = defineTexts<'auth'>(
 * catalog)` in the feature's text.ts, then `const text = useAuthText(); text('signIn')` in its
 * components. Defining registers the namespace as its module loads, so the router fetches its
 * other languages before the page first draws; the hook's function changes with the language, so
 * what uses it draws again.
 */
export function defineTexts<N extends Namespace>(catalog: NamespaceModule): TextsHook<N> {
  registerNamespace(catalog);
  const namespace = catalog.namespace as N;
  const textsOf = (translator: Pick<I18n, '_'>): Texts<N> =>
    Object.assign(
      (key: MessageKey<N>, values?: Record<string, unknown>) =>
        translate(translator, `${namespace}.${key}`, values),
      { namespace },
    );
  function useTexts(): Texts<N> {
    const { _ } = useLingui();
    // `_` is new with each language: the texts are too.
    return useMemo(() => textsOf({ _ }), [_]);
  }
  return Object.assign(useTexts, { now: textsOf(i18n) });
}
