import type { MessageKey } from '@kegel/contract/i18n/catalogs';
import { LinguiContext } from '@lingui/react';
import { useContext } from 'react';

import { paths } from '../../config/paths';
import '../../shared/i18n/common-text';
import { i18n } from '../../shared/i18n/i18n';
import { Button, ButtonLink } from '../../shared/ui/button';
import siteStyles from '../layouts/site-layout.module.css';
import { StatusPage } from './status-page';

/**
 * What shows instead of a blank screen when a page's code cannot be loaded or a page throws while
 * rendering (route-error-boundary.tsx): what happened, and a way back. A page's code fails to
 * load when the connection drops or when a new version was deployed since this tab opened (the
 * old file names are gone), so reloading is offered first.
 */
export function RouteErrorPage({ error }: { error: unknown }): React.JSX.Element {
  const text = useErrorPageText();
  const failedToLoad = isFailedCodeLoad(error);
  return (
    <StatusPage
      title={text(failedToLoad ? 'pageNotLoaded' : 'somethingWentWrong')}
      text={text(failedToLoad ? 'pageNotLoadedText' : 'pageStoppedWorking')}
    >
      <Button onClick={() => window.location.reload()}>{text('reloadPage')}</Button>
      {/* A full load, not a client-side one: it starts again from fresh code and state. */}
      <ButtonLink to={paths.home.getHref()} variant="outlined" reloadDocument>
        {text('goToHomePage')}
      </ButtonLink>
    </StatusPage>
  );
}

/**
 * The same, for an error in the site's frame itself (header, footer), which is then not there to
 * hold it.
 */
export function RootErrorPage({ error }: { error: unknown }): React.JSX.Element {
  return (
    <main className={siteStyles.main} id="main">
      <RouteErrorPage error={error} />
    </main>
  );
}

/**
 * The `common` texts, as useCommonText gives them inside the app's providers (following a change
 * of language), and straight from i18n outside them: an error page must draw wherever the error
 * is caught, whatever failed above it.
 */
function useErrorPageText(): (key: MessageKey<'common'>) => string {
  const translate = useContext(LinguiContext)?._ ?? i18n._.bind(i18n);
  return (key) => translate(`common.${key}`);
}

/** Each browser words a failed `import()` its own way. */
function isFailedCodeLoad(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return [
    'Failed to fetch dynamically imported module', // Chromium
    'error loading dynamically imported module', // Firefox
    'Importing a module script failed', // Safari
  ].some((text) => message.includes(text));
}
