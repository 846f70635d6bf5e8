import './app/global.css';

import { startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';

import type * as BrowserApp from './app/browser-app';

const rootElement = document.getElementById('root');
if (!rootElement) throw new Error('index.html has no #root element');

// A visitor's page arrives drawn already (the build prerenders it, scripts/prerender.mjs): the app
// takes over that HTML rather than drawing it again. The member area arrives with only the frame
// shown while the profile loads (`data-frame-only`): the app draws over it, as over an empty page.
// Both in a transition: React then does the work in slices of a few milliseconds, yielding to the
// browser between them, instead of in one long task (the main thread blocked for hundreds of
// milliseconds on a slow phone: Lighthouse's Total Blocking Time, issue 30). A click meanwhile
// is not lost: React hydrates the part clicked first and replays the click, and the controls
// that need the app are drawn disabled until it runs.
function start({ app, PageTakeover }: typeof BrowserApp, mayTakeOver: boolean): void {
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
 * Resolves in a task of its own: the browser may paint and handle input between two pieces of the
 * start, rather than run them as one long task (Lighthouse's Total Blocking Time counts each
 * task's excess over 50 ms, issue 30). A message, not a timer: a timer waits a second in a tab
 * opened in the background.
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

// This task evaluated React DOM; the app's modules (the router, the query cache, the texts and the
// pages' frame) are evaluated in the next, and React's work starts in the one after.
void nextTask()
  .then(() => import('./app/browser-app'))
  .then(async (browserApp) => {
    const inThePagesLanguage = await browserApp.speakThePagesLanguage();
    await nextTask();
    start(browserApp, inThePagesLanguage);
  });
