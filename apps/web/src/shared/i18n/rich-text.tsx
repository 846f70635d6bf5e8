import type { MessageKey, Namespace } from '@kegel/contract/i18n/catalogs';
import { Trans } from '@lingui/react';
import type { ReactElement } from 'react';

import type { Texts } from './define-texts';

/**
 * A text with elements in it: each `<name>words</name>` of the message becomes the element of
 * that name in `components`, around its words (`{ link: <Link to="…" /> }`). A module of its own,
 * so only the pages with such a text carry Lingui's Trans.
 */
export function RichText<N extends Namespace>({
  texts,
  name,
  components,
  values,
}: {
  texts: Texts<N>;
  name: MessageKey<N>;
  components: Record<string, ReactElement>;
  values?: Record<string, unknown>;
}): React.JSX.Element {
  return <Trans id={`${texts.namespace}.${name}`} components={components} values={values} />;
}
