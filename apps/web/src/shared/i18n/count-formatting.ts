// Counts in plural messages, written with a formatter Lingui makes on first use.
import { i18n } from './i18n';

/**
 * Lingui writes the count of every plural message with an Intl.NumberFormat it makes on first use,
 * and the page's first Intl formatter loads the browser's locale data: 70 ms of /purchase's main
 * thread at Lighthouse's 4 x slower CPU, inside the task that drew the plans when they arrived.
 * A page that draws counts as soon as its data arrives calls this when its module loads: the
 * formatter is then made in a task of its own, before the data is back, and that task no longer
 * grows by it (issue 30). `i18n.number` makes the very formatter Lingui keeps for plurals.
 */
export function prepareCountFormattingSoon(): void {
  if (typeof window === 'undefined') return;
  setTimeout(() => void i18n.number(0), 0);
}
