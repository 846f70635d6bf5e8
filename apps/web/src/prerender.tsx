// The build's entry for prerendering (scripts/prerender.mjs): the HTML of a visitor's page as the
// app first draws it in a browser with no one signed in, so the page shows before its code runs.
import { StrictMode } from 'react';
import { prerender } from 'react-dom/static';
import { StaticRouter } from 'react-router';

import { App } from './app/app';
import { MemberLoadingFrame } from './app/layouts/site-layout';

export { framedPaths, prerenderedPaths } from './app/page-modules';

/** The markup of #root at `path`, once every lazily loaded part of the page has loaded. */
export async function renderPage(path: string): Promise<string> {
  const { prelude } = await prerender(
    <StrictMode>
      <StaticRouter location={path}>
        <App />
      </StaticRouter>
    </StrictMode>,
  );
  return new Response(prelude).text();
}

/** The markup of #root at `path` in the member area: the frame shown while the profile loads. */
export async function renderFrame(path: string): Promise<string> {
  const { prelude } = await prerender(
    <StaticRouter location={path}>
      <MemberLoadingFrame />
    </StaticRouter>,
  );
  return new Response(prelude).text();
}
