import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

import fastifyStatic from '@fastify/static';
import {
  DEFAULT_LOCALE,
  isLocale,
  isPageLocale,
  LOCALE_COOKIE,
  LOCALE_COOKIE_MAX_AGE_SECONDS,
  type PageLocale,
  pickLocale,
} from '@kegel/contract/i18n';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

import { pathOf } from '../http/request-log';
import { sendRouteNotFound } from './error-handler';

const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

/**
 * The pages whose address carries a live code or an email: the emailed links (README, Product
 * rules) and Stripe's return to /purchase/complete. They are sent with `Referrer-Policy:
 * no-referrer`, so the browser never repeats that address in a `Referer` header: not to our own
 * API (whose requests a proxy may log), nor to any other site. The policy holds for the whole
 * life of the page, including the app's in-page navigations after it.
 *
 * Only these pages, not every one: the sign-in pages load Google's and Apple's scripts, whose
 * frames and popups may rely on the Referer to recognise the site, and no other page has a secret
 * in its address. Lower case and without a trailing slash, as React Router matches them.
 */
const PAGES_WITH_SECRETS_IN_THE_ADDRESS = new Set([
  '/account/recover/new',
  '/account/verify-email',
  '/account/cancel-email-change',
  // The reminder mail's unsubscribe link: a signed token that never expires.
  '/account/unsubscribe',
  '/purchase/complete',
]);

const PAGES_FOLDER = 'pages';
/** The other languages' copies of every page (apps/web/scripts/prerender.mjs): languages/de/… */
const LANGUAGES_FOLDER = 'languages';

/** A cookie's value from a Cookie header, or undefined. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of header?.split(';') ?? []) {
    const [key, ...value] = pair.split('=');
    if (key?.trim() === name) return value.join('=').trim();
  }
  return undefined;
}

/**
 * The language a page is answered in (README, Languages): the visitor's choice (the language
 * cookie, which the app also sets to a member's stored choice), else the best of his browser's
 * Accept-Language, else English. The server cannot see a member's stored choice on a page request
 * (his tokens are in the browser's storage, not in a cookie): the app applies it once his profile
 * arrives, and keeps it in the cookie for the next page.
 */
function languageOfPage(request: FastifyRequest): PageLocale {
  return pickLocale({
    cookie: cookieValue(request.headers.cookie, LOCALE_COOKIE),
    acceptLanguage: request.headers['accept-language'],
  });
}

/**
 * The footer's language links (`?lang=de`) work before the app runs: the choice goes into the
 * cookie and the same address is answered again without it, in that language. Answers whether
 * it redirected.
 */
function keepLanguageChoice(request: FastifyRequest, reply: FastifyReply): boolean {
  const url = new URL(request.url, 'http://page');
  const chosen = url.searchParams.get('lang');
  if (chosen === null) return false;
  url.searchParams.delete('lang');
  // Only a language we offer: the pseudo-locale is set by hand (a test), never by a link that
  // any site could send a visitor through.
  if (isLocale(chosen)) {
    void reply.header(
      'set-cookie',
      `${LOCALE_COOKIE}=${chosen}; Path=/; Max-Age=${LOCALE_COOKIE_MAX_AGE_SECONDS}; SameSite=Lax`,
    );
  }
  // One leading slash: `//host` in a Location header would send the browser to another site
  // (an address like /a/..//evil.example normalises to that).
  void reply.redirect(`${url.pathname.replace(/^\/+/, '/')}${url.search}`, 303);
  return true;
}

/**
 * The build's copies of index.html that also preload one page's code (apps/web/scripts/
 * page-preloads.ts), by the address they are for: `pages/auth/login.html` for `/auth/login`.
 */
function pagesWithPreloads(root: string): Map<string, string> {
  const pages = new Map<string, string>();
  const walk = (folder: string): void => {
    const full = path.join(root, folder);
    if (!existsSync(full)) return;
    for (const entry of readdirSync(full, { withFileTypes: true })) {
      const file = `${folder}/${entry.name}`;
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.html')) {
        pages.set(file.slice(PAGES_FOLDER.length).replace(/\.html$/, ''), file);
      }
    }
  };
  walk(PAGES_FOLDER);
  return pages;
}

/**
 * Serves the built web app (apps/web/dist). Vite puts content-hashed files under /assets, so they
 * can be cached for a year; everything else (index.html above all) is revalidated on each visit so
 * a deploy reaches people at once. The build also writes .br and .gz twins that are sent to
 * browsers that accept them. Any other GET outside /api answers index.html, or the build's copy of
 * it that preloads the page of that address: the React router owns those paths (history fallback).
 */
export interface WebAppOptions {
  root: string;
  /**
   * Whether the build's source maps (and their .br/.gz twins) are served. Off in production: they
   * hand out the original source, comments included. They stay in dist/ for whoever reads a stack
   * trace on the server, and the build is the same for both modes (docs/deployment.md, Running in
   * production).
   */
  serveSourceMaps: boolean;
}

const SOURCE_MAP = /\.map(\.br|\.gz)?$/i;

export const webAppPlugin = fp<WebAppOptions>(
  async function webAppPlugin(app, { root, serveSourceMaps }) {
    const indexFile = path.join(root, 'index.html');
    if (!existsSync(indexFile)) {
      app.log.warn(`web app not built (${indexFile} is missing): only the API is served`);
      app.setNotFoundHandler(sendRouteNotFound);
      return;
    }
    const pages = pagesWithPreloads(root);
    const builtLanguages = new Set(
      existsSync(path.join(root, LANGUAGES_FOLDER))
        ? readdirSync(path.join(root, LANGUAGES_FOLDER)).filter(isPageLocale)
        : [],
    );
    await app.register(fastifyStatic, {
      root,
      preCompressed: true,
      cacheControl: false,
      // Refused paths reach the not-found handler below, which answers /assets/... with a 404.
      allowedPath: (pathname) => serveSourceMaps || !SOURCE_MAP.test(pathname),
      setHeaders(response, filePath) {
        const isHashedAsset = filePath.startsWith(path.join(root, 'assets') + path.sep);
        response.setHeader(
          'cache-control',
          isHashedAsset ? `public, max-age=${ONE_YEAR_SECONDS}, immutable` : 'no-cache',
        );
        // Any file may be answered from its .br or .gz twin: a cache must keep the encodings apart.
        response.setHeader('vary', 'Accept-Encoding');
      },
    });

    app.setNotFoundHandler(serveIndexOrNotFound);
    // `/` too, in the reader's language: the static files would answer it with English index.html.
    app.get('/', { schema: { hide: true } }, serveIndexOrNotFound);

    function serveIndexOrNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
      const isPageRequest = request.method === 'GET' || request.method === 'HEAD';
      const pathname = pathOf(request.url);
      // The static route matches every GET path, /api ones included, so they land here too.
      // A missing hashed asset is a real 404: answering HTML there breaks the page in a stranger way.
      const isApiCall = pathname === '/api' || pathname.startsWith('/api/');
      if (!isPageRequest || isApiCall || pathname.startsWith('/assets/')) {
        return sendRouteNotFound(request, reply);
      }
      if (keepLanguageChoice(request, reply)) return reply;
      const page = pathname.toLowerCase().replace(/(?<=.)\/+$/, '');
      if (PAGES_WITH_SECRETS_IN_THE_ADDRESS.has(page))
        void reply.header('referrer-policy', 'no-referrer');
      const file = pages.get(page) ?? 'index.html';
      const language = languageOfPage(request);
      // The same address answers each reader in his language (and from a .br or .gz twin): caches
      // must keep them apart. This Vary replaces the static files' own (setHeaders above).
      void reply
        .header('vary', 'Accept-Language, Cookie, Accept-Encoding')
        .header('content-language', language);
      // No validators: one address has a copy per language, and two copies can share a size and
      // a time (es and de differ only in `lang`), so an ETag or Last-Modified could tell a German
      // reader to keep the Spanish page. The pages are small and revalidated on every visit.
      const unvalidated = { etag: false, lastModified: false };
      if (language === DEFAULT_LOCALE || !builtLanguages.has(language)) {
        return reply.sendFile(file, unvalidated);
      }
      return reply.sendFile(path.join(LANGUAGES_FOLDER, language, file), unvalidated);
    }
  },
  { name: 'web-app' },
);
