// A new tab for a link the server has yet to make: the payment link and the customer portal open
// in a new tab once they return. Browsers let a page open a tab only while it handles the click,
// not after an awaited request (Safari is the strictest), so the tab is opened during the click,
// shows a short note, and is sent to the URL when it arrives.

import { useCommonText } from '../i18n/common-text';

export interface PendingTab {
  /** Sends the tab to `url`; without a tab (popups blocked) this page goes there instead. */
  go(url: string): void;
  /** The link could not be made: the empty tab goes away. */
  close(): void;
}

export function openPendingTab(note: string): PendingTab {
  const tab = window.open('', '_blank');
  if (tab) {
    try {
      tab.document.title = note;
      tab.document.body.style.font = '16px system-ui, sans-serif';
      tab.document.body.style.margin = '40px';
      tab.document.body.textContent = note;
    } catch {
      // A browser that keeps the blank tab from us still lets us navigate it.
    }
    // The page opened later (Stripe's) must not be able to reach back into this one.
    tab.opener = null;
  }
  return {
    go(url) {
      // Only web pages: a `javascript:` URL would run with this site's rights.
      if (!/^https?:\/\//i.test(url)) {
        tab?.close();
        throw new Error(useCommonText.now('linkNotAWebPage'));
      }
      if (tab && !tab.closed) tab.location.replace(url);
      else window.location.assign(url);
    },
    close() {
      tab?.close();
    },
  };
}
