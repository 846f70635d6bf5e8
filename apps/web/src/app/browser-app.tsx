// The app as the browser draws it, with what it needs before it starts: loaded by main.tsx in a
// task after the one that evaluated React DOM, so that the two evaluations are not one long task
// (issue 30). The build preloads this module with the entry (scripts/page-preloads.ts): it does
// not wait for the entry to run before it downloads.
import { DEFAULT_LOCALE } from '@kegel/contract/i18n';
import { StrictMode } from 'react';
import { BrowserRouter } from 'react-router';

import { localeOfThisPage, switchLocale } from '../shared/i18n/i18n';
import { App } from './app';

export { PageTakeover } from '../shared/browser/use-is-app-running';

export const app = (
  <StrictMode>
    <BrowserRouter>
      <App />
    </BrowserRouter>
  </StrictMode>
);

/**
 * The page's language made the app's (`<html lang>`: its messages first, so that the app never
 * draws English over a German page; English needs none). False when its messages could not be
 * fetched (the network dropped): the app is then in English and must draw the page afresh rather
 * than leave a page whose buttons never work.
 */
export async function speakThePagesLanguage(): Promise<boolean> {
  try {
    await switchLocale(localeOfThisPage());
    return true;
  } catch {
    await switchLocale(DEFAULT_LOCALE);
    return false;
  }
}
