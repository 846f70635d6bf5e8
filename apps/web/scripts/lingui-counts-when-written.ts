// A Vite plugin: Lingui writes a plural's count with Intl.NumberFormat only when the chosen case
// shows the count (`#`). Lingui 5 (and 6) formats the count for every plural it fills, `#` or
// not, and the first Intl.NumberFormat of a page loads the browser's number data: 15 to 64 ms in
// a fresh headless Chromium on this machine, against under half a millisecond for the
// Intl.PluralRules that picks the case. /purchase's plan cards say "for 30 days" as `{days}`,
// not `#` (no formatter is needed), and at Lighthouse's 4 x slower CPU that formatter was one of
// the page's four tasks over 50 ms, beside the document's start, its first layout and the
// evaluation of the app's code (issue 30). One test is added before Lingui formats the count, on
// the same line (the source map's lines still hold); where a message shows the count, it is
// written by Intl as before. The build's Lingui only: the dev server serves npm's, the same text.
import type { Plugin } from 'vite';

/** Any of Lingui's files, and the one this plugin changes. */
const ANY_LINGUI_CORE_FILE = /[\\/]@lingui[\\/]core[\\/]/;
const LINGUI_CORE_ENTRY = /[\\/]@lingui[\\/]core[\\/]dist[\\/]index\.mjs$/;

const FORMATS_EVERY_COUNT = `const valueStr = number(locales, value, numberFormat);
    return message.replace(new RegExp(OCTOTHORPE_PH, "g"), valueStr);`;
/** Put in front of it, on its line: a case without `#` is returned as it is. */
const UNLESS_WRITTEN = 'if (!message.includes(OCTOTHORPE_PH)) return message; ';

/**
 * Lingui's code with the count formatted only where it is written; an error when the code is not
 * the one this was written against (an upgrade must look at it again, not lose it quietly).
 */
export function formatCountsOnlyWhenWritten(code: string): string {
  if (!code.includes(FORMATS_EVERY_COUNT)) {
    throw new Error(
      '@lingui/core: its plural formatter is not the one lingui-counts-when-written.ts changes; ' +
        'see whether it still formats every count, and update or drop the plugin',
    );
  }
  return code.replace(FORMATS_EVERY_COUNT, UNLESS_WRITTEN + FORMATS_EVERY_COUNT);
}

export function linguiCountsWhenWritten(): Plugin {
  let changed = false;
  return {
    name: 'kegel:lingui-counts-when-written',
    transform(code, id) {
      if (!LINGUI_CORE_ENTRY.test(id)) return undefined;
      changed = true;
      return { code: formatCountsOnlyWhenWritten(code), map: null };
    },
    buildEnd() {
      // Lingui taken from another of its files (a new entry in its package.json, say) would
      // otherwise go out unchanged without a word.
      const lingui = [...this.getModuleIds()].filter((id) => ANY_LINGUI_CORE_FILE.test(id));
      if (lingui.length > 0 && !changed) {
        this.error(`@lingui/core came from ${lingui.join(', ')}, not the file this plugin changes`);
      }
    },
  };
}
