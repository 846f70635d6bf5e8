// What JavaScript a page loads before it can show anything, read from a build (apps/web/dist or
// any other outDir): the entry with its static imports, plus the page's lazily loaded modules
// (.vite/page-modules.json, written by page-preloads.ts) with theirs, from Vite's manifest. Sizes
// are gzip level 9, as precompress.mjs sends them. Used by `npm run measure:bundle` and by
// initial-javascript.test.ts, which holds the budgets below.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** The most initial JavaScript, in kB of gzip (1 kB = 1024 bytes), each page may load. */
export const INITIAL_JAVASCRIPT_BUDGETS_KB = {
  '/home': 110,
  '/auth/login': 132,
  '/purchase': 130,
};

/**
 * What each visitor and member page loaded before the support desk was added (bytes, raw and gzip
 * level 9, measured on the build of the commit before it): the desk is for a handful of
 * operators, and no visitor or member page may carry one byte more for it. A page that shrinks
 * may lower its figure here; a page that must grow for its own sake raises it in the same commit,
 * saying why.
 */
export const BEFORE_THE_DESK = {
  '/home': { raw: 333539, gzip: 105959 },
  '/auth/login': { raw: 426560, gzip: 138408 },
  '/auth/register': { raw: 414637, gzip: 134394 },
  '/auth/reset': { raw: 410044, gzip: 132187 },
  '/account/recover/new': { raw: 410542, gzip: 132554 },
  '/account/verify-email': { raw: 383598, gzip: 122665 },
  '/account/cancel-email-change': { raw: 385879, gzip: 123549 },
  '/account/sign-in-not-me': { raw: 365411, gzip: 116493 },
  '/account/deleted': { raw: 384803, gzip: 123307 },
  '/purchase': { raw: 411471, gzip: 132665 },
  '/purchase/complete': { raw: 337377, gzip: 107671 },
  '/dashboard': { raw: 336636, gzip: 107558 },
  '/dashboard/history': { raw: 377286, gzip: 121610 },
  // Raised for Account Settings' own Preferences section (its two boxes, the Apple consent's
  // explanation and preferences-api.ts, nothing lazy): measured 468,879 B raw and 152,350 B gzip
  // against 467,088 and 151,770 on the build before it (+1,791 raw, +580 gzip), plus ~80 B of
  // room for the file names' hashes.
  '/dashboard/settings': { raw: 468968, gzip: 152430 },
};

/**
 * The one page that still carries more than before the desk, by how many bytes of gzip: the
 * Purchase History (shared/premium/purchase-history.tsx) takes the props the desk's "view as
 * member" needs (its premium block, no billing portal, the desk's words for no purchases) and
 * names a support grant that was removed. Held here so that it cannot grow further unnoticed.
 */
export const STILL_OVER_BEFORE_THE_DESK = {
  // Measured +44 B of gzip (the member's own History gained the Support and "Removed" labels and
  // the props the desk's read-only view needs); the rest is room for the file names' hashes,
  // which move the gzip of an entry by a few bytes from one build to the next.
  // Then +767 B raw and +147 B of gzip measured for "Bought on your iPhone?": the claim form
  // itself is loaded after the page (features/premium/components/claim-purchase-form.tsx), and
  // what the page carries for it is the lazy import and the list of files it preloads.
  // Then +84 B raw and +32 B gzip, not for the desk: a lost dispute reads "Charged back" rather
  // than "Refunded" (the label, and PurchaseItem's optional refundKind in the contract).
  '/dashboard/history': { raw: 884, gzip: 256 },
};

/**
 * What each page grew by for the money operations (issue 27), beyond the figures above, measured
 * on the build that added them (raw exact; gzip plus 40 B of room for the file names' hashes):
 * - every page: the contract's table of calls names five more (preferences read and change, the
 *   App Store claim, the one-click unsubscribe and its page's redirect), the router has the
 *   /account/unsubscribe page's lazy route, and the HTTP client follows the development clock's
 *   cookie on this machine's own addresses only (shared/http/dev-clock.ts: about 430 B raw;
 *   production never sets the cookie, but one build serves both);
 * - the pages that read the profile's schemas (verify-email, cancel-email-change, deleted,
 *   history): PurchaseItem's optional refundKind ("Charged back"). The preferences' schemas are a
 *   file of their own (contract/preferences.ts) so that only Account Settings carries them;
 * - /dashboard/history: "Bought on your iPhone?" (the lazy claim form's import and preload list)
 *   and the "Charged back" label; /dashboard/settings: the Preferences section's own code.
 * A figure below 0 is a page now lighter than before the desk: the data export's schema moved out
 * of users.ts into contract/data-export.ts, which no page loads (about 1.2 kB raw off the pages
 * that read the profile's schemas). A page that shrinks lowers its figure here.
 */
export const GROWN_FOR_MONEY_OPERATIONS = {
  '/home': { raw: 478, gzip: 262 },
  '/auth/login': { raw: 522, gzip: 268 },
  '/auth/register': { raw: 518, gzip: 261 },
  '/auth/reset': { raw: 526, gzip: 263 },
  '/account/recover/new': { raw: 522, gzip: 260 },
  '/account/verify-email': { raw: -628, gzip: -280 },
  '/account/cancel-email-change': { raw: -622, gzip: -279 },
  '/account/sign-in-not-me': { raw: 409, gzip: 80 },
  '/account/deleted': { raw: -622, gzip: -277 },
  '/purchase': { raw: 531, gzip: 262 },
  '/purchase/complete': { raw: 483, gzip: 253 },
  '/dashboard': { raw: 480, gzip: 270 },
  '/dashboard/history': { raw: -510, gzip: -149 },
  '/dashboard/settings': { raw: -301, gzip: -389 },
};

/**
 * What each page grew by for validation messages that name their field (issue 28), beyond the
 * figures above, measured on the build that added them (raw exact; gzip plus 40 B of room for the
 * file names' hashes):
 * - every page: the HTTP client keeps a 400's `fields` (each message with the field it is about)
 *   on its ApiError, checked to be a list of field and message (about 170 B raw);
 * - the pages with a form (sign-in, register, reset, purchase, Account Settings, and the pages
 *   that load the form hook's module with the profile's schemas): useContractForm puts each of
 *   those messages under the form's field of that name, the first focused, and shows no toast
 *   when every one found its field (about 300 to 800 B raw more).
 */
export const GROWN_FOR_FIELD_MESSAGES = {
  '/home': { raw: 167, gzip: 51 },
  '/auth/login': { raw: 798, gzip: 241 },
  '/auth/register': { raw: 798, gzip: 239 },
  '/auth/reset': { raw: 798, gzip: 233 },
  '/account/recover/new': { raw: 798, gzip: 237 },
  '/account/verify-email': { raw: 456, gzip: 138 },
  '/account/cancel-email-change': { raw: 456, gzip: 141 },
  '/account/sign-in-not-me': { raw: 442, gzip: 122 },
  '/account/deleted': { raw: 456, gzip: 138 },
  '/purchase': { raw: 965, gzip: 311 },
  '/purchase/complete': { raw: 167, gzip: 52 },
  '/dashboard': { raw: 167, gzip: 54 },
  '/dashboard/history': { raw: 456, gzip: 144 },
  '/dashboard/settings': { raw: 821, gzip: 261 },
};

/**
 * What each page's first JavaScript changed by for its languages (issue 29), beyond the figures
 * above, measured on the build that finished them (raw exact; gzip plus 40 B of room for the file
 * names' hashes):
 * - every page: Lingui's runtime and its React provider (@lingui/core and @lingui/react, about
 *   5.9 kB raw and 2.1 kB gzip: scripts/bench/i18n-library-cost.mjs measured i18next with
 *   react-i18next at 8 times that, 17 kB of gzip, which no budget here could carry), the choice of
 *   language (shared/i18n/i18n.ts, contract/i18n/locales.ts, shared/session/language-choice.ts:
 *   the stored choice applied when it is one of ours, the footer's links kept with a member's
 *   account; backslashes kept through Lingui, contract/i18n/backslashes.ts; the entry drawing
 *   the page afresh in English when its language's texts cannot be fetched), the frame's and
 *   the client's own texts in English with a loader per other language (virtual:catalog/common),
 *   `localizeMessage` for the contract's texts, and `locale` in the profile's schema;
 * - each page: its own texts as keys and a catalog (the English text once, its key twice), a loader
 *   per language per namespace, and the formatting of dates and money by language;
 * - /auth/login: the passkey library (@simplewebauthn/browser) now loads when the page has drawn
 *   (shared/browser/passkey-dialog.ts), about 2.4 kB of gzip out of its first JavaScript;
 * - the pages the emailed links open (verify email, cancel an email change, account deleted) are
 *   lighter by 8.8 to 10.5 kB of gzip than before: their texts and writes moved out of Account
 *   Settings' modules (features/account/email-links-api.ts, namespace accountEmailLinks), so
 *   they no longer load the passkey and two-step code. A page that shrinks lowers its figure here;
 * - later: the texts outside components through defineTexts (`useCommonText.now`, 4 to 6 B
 *   raw), and the password's show/hide toggle drawn disabled until the app runs (issue 30's dead
 *   clicks; 8 B raw on Account Settings, the other pages had the room), and the confirmation of a
 *   new email cancelling the profile read started beside it before reading again (53 B raw on
 *   the pages that load features/account/email-links-api.ts).
 */
export const GROWN_FOR_LANGUAGES = {
  '/home': { raw: 10055, gzip: 4007 },
  '/auth/login': { raw: 8126, gzip: 4097 },
  '/auth/register': { raw: 16081, gzip: 6502 },
  '/auth/reset': { raw: 16202, gzip: 6612 },
  '/account/recover/new': { raw: 16872, gzip: 6939 },
  '/account/verify-email': { raw: -33019, gzip: -10305 },
  '/account/cancel-email-change': { raw: -29202, gzip: -8595 },
  '/account/sign-in-not-me': { raw: 16495, gzip: 6275 },
  '/account/deleted': { raw: -32830, gzip: -10083 },
  '/purchase': { raw: 14283, gzip: 5928 },
  '/purchase/complete': { raw: 13860, gzip: 5695 },
  '/dashboard': { raw: 12034, gzip: 4908 },
  '/dashboard/history': { raw: 12312, gzip: 5059 },
  '/dashboard/settings': { raw: 25128, gzip: 7579 },
};

/**
 * What each page's first JavaScript grew by for quicker first pages (issue 30), beyond the
 * figures above, measured on the build that added it (raw exact; gzip plus 40 B of room for the
 * file names' hashes):
 * - every page: the entry takes over the page (or draws it) in a transition (main.tsx), so that
 *   React works in slices rather than in one long task (29 B raw), and starts a task after the
 *   one that evaluated the app's modules, so that the two are not one long task (154 B raw; a
 *   few pages' other chunks came out smaller in the same build);
 * - the pages with a form: a field's ref callback is the same on every render, so React does not
 *   detach and attach it in each commit (shared/forms/use-contract-form.ts, 110 B raw); the
 *   login and register pages keep their Google, Apple and passkey parts from drawing again when
 *   the form does (memo, 130-140 B raw);
 * - the checkout's pages write English prices themselves (shared/format/money.ts) rather than
 *   wait on Intl's first NumberFormat, 62 ms of /purchase's main thread at a 4 x slower CPU;
 *   /purchase keeps its plan cards from drawing again when a plan is preselected; Lingui makes
 *   its count formatter only for a message that shows the count (scripts/lingui-counts-when-
 *   written.ts: 32 B raw on every page; /purchase, which no longer makes that formatter early,
 *   45 B smaller in all).
 */
export const GROWN_FOR_QUICK_PAGES = {
  '/home': { raw: 183, gzip: 64 },
  '/auth/login': { raw: 281, gzip: 81 },
  '/auth/register': { raw: 280, gzip: 69 },
  '/auth/reset': { raw: 242, gzip: 60 },
  '/account/recover/new': { raw: 262, gzip: 71 },
  '/account/verify-email': { raw: 183, gzip: 58 },
  '/account/cancel-email-change': { raw: 183, gzip: 60 },
  '/account/sign-in-not-me': { raw: 183, gzip: 58 },
  '/account/deleted': { raw: 183, gzip: 61 },
  '/purchase': { raw: 781, gzip: 365 },
  '/purchase/complete': { raw: 550, gzip: 280 },
  '/dashboard': { raw: 183, gzip: 64 },
  '/dashboard/history': { raw: 182, gzip: 61 },
  '/dashboard/settings': { raw: 293, gzip: 106 },
};

/**
 * What each page's first JavaScript changed by when the forms of the pages drawn before the app
 * began to import their schemas on the visitor's first touch (issue 30; shared/forms/lazy-schema.ts),
 * beyond the figures above, measured against the build before it (raw exact; gzip plus 40 B of
 * room for the file names' hashes):
 * - the sign-in pages and /purchase no longer carry zod and the contract's schemas (about 29 kB
 *   raw, 9 kB of gzip, and the 200-ms task at a 4 x slower CPU that built them);
 * - /account/sign-in-not-me neither: its page's answers moved from sign-ins.ts, beside schemas, to
 *   messages.ts, and the field messages to a module of their own (contract/field-messages.ts);
 * - every page: the entry's table of what each lazy page needs names the new files (65 B raw),
 *   and the development clock's cookie is read on this machine's own addresses only (3 B raw,
 *   shared/http/dev-clock.ts);
 * - the pages whose forms keep their schema at hand (Account Settings, the History's claim form)
 *   carry useContractForm's test for a lazy schema (about 170 B raw) and the files' new split;
 *   the pages that show the API's messages carry "This wasn't me"'s two answers (190 B raw).
 */
export const GROWN_FOR_LAZY_SCHEMAS = {
  '/home': { raw: 68, gzip: 77 },
  '/auth/login': { raw: -29741, gzip: -9308 },
  '/auth/register': { raw: -28986, gzip: -8910 },
  '/auth/reset': { raw: -33121, gzip: -10570 },
  '/account/recover/new': { raw: -32412, gzip: -10198 },
  '/account/verify-email': { raw: 68, gzip: 72 },
  '/account/cancel-email-change': { raw: 260, gzip: 125 },
  '/account/sign-in-not-me': { raw: -26468, gzip: -8144 },
  '/account/deleted': { raw: 68, gzip: 72 },
  '/purchase': { raw: -28814, gzip: -8699 },
  '/purchase/complete': { raw: 68, gzip: 80 },
  '/dashboard': { raw: 68, gzip: 73 },
  '/dashboard/history': { raw: 442, gzip: 264 },
  '/dashboard/settings': { raw: 649, gzip: 340 },
};

/** The files of the member area, the auth forms and checkout, none of which /home may load. */
export const NOT_FOR_HOME = /(dashboard|settings|member|purchase|history|login|register)/;

/**
 * The support desk's modules (its route tree and its feature folder), which only the /ops addresses may
 * load: operators are a handful of people, and no visitor or member carries their code.
 */
export const DESK_MODULE = /^src\/(features\/support-desk\/|app\/routes\/support-desk-routes)/;

/** The built files that hold a module of the desk, from Vite's manifest. */
export function deskFiles(distDir) {
  const manifest = readJson(distDir, '.vite/manifest.json');
  return Object.entries(manifest)
    .filter(([key, chunk]) => DESK_MODULE.test(chunk.src ?? key))
    .map(([, chunk]) => chunk.file);
}

function readJson(distDir, file) {
  return JSON.parse(readFileSync(path.join(distDir, file), 'utf8'));
}

/**
 * For every address of the app: the JavaScript files it loads at first (`files`), their raw and
 * gzip bytes, and the scripts its HTML names (`preloaded`: the entry and the modulepreloads), which
 * must be the same files for the page to load without a waterfall.
 */
export function measureInitialJavaScript(distDir) {
  const manifest = readJson(distDir, '.vite/manifest.json');
  const pageModules = readJson(distDir, '.vite/page-modules.json');

  function withStaticImports(key, files) {
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not in the build's manifest`);
    if (files.has(chunk.file)) return files;
    files.add(chunk.file);
    for (const imported of chunk.imports ?? []) withStaticImports(imported, files);
    return files;
  }

  const sizes = new Map();
  function sizeOf(file) {
    if (!sizes.has(file)) {
      const bytes = readFileSync(path.join(distDir, file));
      sizes.set(file, { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length });
    }
    return sizes.get(file);
  }

  return Object.entries(pageModules).map(([address, modules]) => {
    const files = withStaticImports('index.html', new Set());
    for (const module of modules) withStaticImports(module, files);
    const html = readFileSync(path.join(distDir, `pages${address}.html`), 'utf8');
    const preloaded = [
      ...html.matchAll(
        /<(?:script type="module"|link rel="modulepreload")[^>]* (?:src|href)="\/([^"]+\.js)"/g,
      ),
    ].map((match) => match[1]);
    return {
      address,
      files: [...files].map((file) => ({ file, ...sizeOf(file) })),
      raw: [...files].reduce((sum, file) => sum + sizeOf(file).raw, 0),
      gzip: [...files].reduce((sum, file) => sum + sizeOf(file).gzip, 0),
      preloaded,
    };
  });
}
