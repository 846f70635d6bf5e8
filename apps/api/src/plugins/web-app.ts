import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

import fastifyStatic from '@fastify/static';
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
    await app.register(fastifyStatic, {
      root,
      preCompressed: true,
      cacheControl: false,
      // Refused paths reach the not-found handler below, which answers /assets/… with a 404.
      allowedPath: (pathname) => serveSourceMaps || !SOURCE_MAP.test(pathname),
      setHeaders(response, filePath) {
        const isHashedAsset = filePath.startsWith(path.join(root, 'assets') + path.sep);
        response.setHeader(
          'cache-control',
          isHashedAsset ? `public, max-age=${ONE_YEAR_SECONDS}, immutable` : 'no-cache',
        );
      },
    });

    app.setNotFoundHandler(function serveIndexOrNotFound(request, reply) {
      const isPageRequest = request.method === 'GET' || request.method === 'HEAD';
      const pathname = pathOf(request.url);
      // The static route matches every GET path, /api ones included, so they land here too.
      // A missing hashed asset is a real 404: answering HTML there breaks the page in a stranger way.
      const isApiCall = pathname === '/api' || pathname.startsWith('/api/');
      if (!isPageRequest || isApiCall || pathname.startsWith('/assets/')) {
        return sendRouteNotFound(request, reply);
      }
      const page = pathname.toLowerCase().replace(/(?<=.)\/+$/, '');
      if (PAGES_WITH_SECRETS_IN_THE_ADDRESS.has(page))
        void reply.header('referrer-policy', 'no-referrer');
      return reply.sendFile(pages.get(page) ?? 'index.html');
    });
  },
  { name: 'web-app' },
);
