import type { MessageKey, Namespace } from '@kegel/contract/i18n/catalogs';
import { cloneElement, Fragment, type ReactElement, type ReactNode } from 'react';

import type { Texts } from './define-texts';

/** `<name>words</name>` in a translated text (no nesting: our catalogs do not nest elements). */
const ELEMENT = /<([A-Za-z0-9_]+)>(.*?)<\/\1>/gs;

/**
 * A text with elements in it: each `<name>words</name>` of the message becomes the element of
 * that name in `components`, around its words (`{ link: <Link to="…" /> }`). Written here rather
 * than with Lingui's Trans: @lingui/react is in every page's entry, and Trans would come with it.
 */
export function RichText<N extends Namespace>({
  texts,
  name,
  components,
  values,
}: {
  texts: Texts<N>;
  name: MessageKey<N>;
  components: Record<string, ReactElement<{ children?: ReactNode }>>;
  values?: Record<string, unknown>;
}): React.JSX.Element {
  const text = texts(name, values);
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(ELEMENT)) {
    const [whole, element = '', words = ''] = match;
    parts.push(text.slice(last, match.index));
    const component = components[element];
    parts.push(component ? cloneElement(component, { key: parts.length }, words) : whole);
    last = match.index + whole.length;
  }
  parts.push(text.slice(last));
  return <Fragment>{parts}</Fragment>;
}
