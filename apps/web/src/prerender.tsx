// The build's entry for prerendering (scripts/prerender.mjs): the HTML of a visitor's page as the
// app first draws it in a browser with no one signed in, so the page shows before its code runs,
// once per language (README, Languages).
import type { PageLocale } from '@kegel/contract/i18n';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { prerender } from 'react-dom/static';
import { StaticRouter } from 'react-router';

import { App } from './app/app';
import { MemberLoadingFrame } from './app/layouts/site-layout';
import { PageTakeover } from './shared/browser/use-is-app-running';
import { i18n, switchLocale } from './shared/i18n/i18n';
import { LanguageProvider } from './shared/i18n/language-provider';

export { framedPaths, prerenderedPaths } from './app/page-modules';
export { DEFAULT_LOCALE, PAGE_LOCALES } from '@kegel/contract/i18n';

/** The markup of #root at `path` in `locale`, once every lazily loaded part has loaded. */
export async function renderPage(path: string, locale: PageLocale): Promise<string> {
  await switchLocale(locale);
  const { prelude } = await prerender(
    // As main.tsx takes it over: the forms drawn waiting for the app.
    <PageTakeover>
      <StrictMode>
        <StaticRouter location={path}>
          <App />
        </StaticRouter>
      </StrictMode>
    </PageTakeover>,
  );
  return new Response(prelude).text();
}

/** The markup of #root at `path` in the member area: the frame shown while the profile loads. */
export async function renderFrame(path: string, locale: PageLocale): Promise<string> {
  await switchLocale(locale);
  const { prelude } = await prerender(
    <LanguageProvider i18n={i18n}>
      {/* The footer's language links use the query client (a member's choice is kept). */}
      <QueryClientProvider client={new QueryClient()}>
        <StaticRouter location={path}>
          <MemberLoadingFrame />
        </StaticRouter>
      </QueryClientProvider>
    </LanguageProvider>,
  );
  return new Response(prelude).text();
}
