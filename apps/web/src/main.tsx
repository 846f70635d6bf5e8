import './app/global.css';

import { DEFAULT_LOCALE } from '@kegel/contract/i18n';
import { startTransition, StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';

import { App } from './app/app';
import { PageTakeover } from './shared/browser/use-is-app-running';
import { localeOfThisPage, switchLocale } from './shared/i18n/i18n';

const rootElement = document.getElementById('root');
if (!rootElement) throw new Error('index.html has no #root element');

const app = (
  <StrictMode>
    <BrowserRouter>
      <App />
    </BrowserRouter>
  </StrictMode>
);

// A visitor's page arrives drawn already (the build prerenders it, scripts/prerender.mjs): the app
// takes over that HTML rather than drawing it again. The member area arrives with only the frame
// shown while the profile loads (`data-frame-only`): the app draws over it, as over an empty page.
// The page is in the language the server drew it in (`<html lang>`): its messages first, so the
// app never draws English over a German page. English needs none.
// Both in a transition: React then does the work in slices of a few milliseconds, yielding to the
// browser between them, instead of in one long task (the main thread blocked for hundreds of
// milliseconds on a slow phone: Lighthouse's Total Blocking Time, issue 30). A click meanwhile
// is not lost: React hydrates the part clicked first and replays the click, and the controls
// that need the app are drawn disabled until it runs.
function start(mayTakeOver: boolean): void {
  startTransition(() => {
    if (
      mayTakeOver &&
      rootElement?.firstElementChild &&
      !rootElement.hasAttribute('data-frame-only')
    ) {
      // Its forms wait until the page is taken over (use-is-app-running.tsx).
      hydrateRoot(rootElement, <PageTakeover>{app}</PageTakeover>);
    } else if (rootElement) {
      createRoot(rootElement).render(app);
    }
  });
}
/**
 * Resolves in a task of its own: the browser may paint and handle input between the evaluation of
 * the app's modules and the start of React's work, rather than both in one long task (Lighthouse's
 * Total Blocking Time counts each task's excess over 50 ms, issue 30). A message, not a timer: a
 * timer waits a second in a tab opened in the background.
 */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

Promise.all([switchLocale(localeOfThisPage()), nextTask()]).then(
  () => start(true),
  // Its messages could not be fetched (the network dropped): the app draws the page afresh in
  // English rather than leaving a page whose buttons never work.
  () => void switchLocale(DEFAULT_LOCALE).then(() => start(false)),
);
