import { paths } from '../../config/paths';
import { Button, ButtonLink } from '../../shared/ui/button';
import { useCommonTextAnywhere } from '../../shared/ui/use-common-text-anywhere';
import siteStyles from '../layouts/site-layout.module.css';
import { StatusPage } from './status-page';

/**
 * What shows instead of a blank screen when a page's code cannot be loaded or a page throws while
 * rendering (route-error-boundary.tsx): what happened, and a way back. A page's code fails to
 * load when the connection drops or when a new version was deployed since this tab opened (the
 * old file names are gone), so reloading is offered first.
 */
export function RouteErrorPage({ error }: { error: unknown }): React.JSX.Element {
  // Not useCommonText: an error page draws wherever the error is caught.
  const text = useCommonTextAnywhere();
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

/** Each browser words a failed `import()` its own way. */
function isFailedCodeLoad(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return [
    'Failed to fetch dynamically imported module', // Chromium
    'error loading dynamically imported module', // Firefox
    'Importing a module script failed', // Safari
  ].some((text) => message.includes(text));
}
