import type { I18n } from '@lingui/core';
import { LinguiContext } from '@lingui/react';
import { type ReactNode, useEffect, useState } from 'react';

interface LanguageContext {
  i18n: I18n;
  _: I18n['_'];
  locale: string;
}

function contextFor(i18n: I18n): LanguageContext {
  // A new `_` per language: what reads its texts through it (defineTexts) draws again.
  return { i18n, _: i18n._.bind(i18n), locale: i18n.locale };
}

/**
 * Lingui's context, drawn again when the language changes and only then. Lingui's own
 * I18nProvider updates it on every `change`, which `i18n.load` emits too: a page's catalog
 * arriving while React is still taking over a prerendered page would then update the context
 * above a part not yet taken over, and React draws that part afresh, losing what the person had
 * typed in it. No text needs that update: a page's messages are loaded before it first draws
 * (the router's lazy pages, main.tsx).
 */
export function LanguageProvider({
  i18n,
  children,
}: {
  i18n: I18n;
  children: ReactNode;
}): React.JSX.Element {
  const [context, setContext] = useState(() => contextFor(i18n));
  useEffect(() => {
    const followLanguage = () => {
      setContext((current) => (current.locale === i18n.locale ? current : contextFor(i18n)));
    };
    // The language may have changed between the first draw and this subscription.
    followLanguage();
    return i18n.on('change', followLanguage);
  }, [i18n]);
  return <LinguiContext.Provider value={context}>{children}</LinguiContext.Provider>;
}
