// Security headers on every answer (helmet). The refresh token lives in localStorage (README,
// Product rules), so a script injected into the page could take the account: the
// Content-Security-Policy runs only this site's scripts and the sign-in provider scripts in use,
// nothing inline. Pages with needs of their own (the local inbox, the API reference) send their
// own policy; the emailed-link pages keep `Referrer-Policy: no-referrer` (web-app.ts).
import fp from 'fastify-plugin';
import helmet from 'helmet';

import type { Config } from '../config';

/**
 * Google Identity Services' own frames, requests and button style, as Google's CSP guide for it
 * lists them. Only with the real Google: the local sandbox needs none of them.
 */
const GOOGLE_IDENTITY_SERVICES = 'https://accounts.google.com/gsi/';
const GOOGLE_IDENTITY_STYLE = 'https://accounts.google.com/gsi/style';

const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

type SecurityHeadersConfig = Pick<Config, 'publicUrl' | 'google'>;

/** The web app's policy: what the built app, its sign-in buttons and Stripe's redirect need. */
function webAppPolicy(
  config: SecurityHeadersConfig,
  providerScripts: string[],
): Record<string, string[]> {
  const isRealGoogle = typeof config.google === 'object';
  return {
    'default-src': ["'self'"],
    // Exact script URLs rather than origins: accounts.google.com also answers JSONP-style
    // endpoints, which a policy allowing the whole origin would let an injection call.
    'script-src': ["'self'", ...providerScripts],
    'style-src': ["'self'", ...(isRealGoogle ? [GOOGLE_IDENTITY_STYLE] : [])],
    'img-src': ["'self'"],
    'font-src': ["'self'"],
    'connect-src': ["'self'", ...(isRealGoogle ? [GOOGLE_IDENTITY_SERVICES] : [])],
    // Sign-in runs in popups (and Stripe's checkout is a redirect); only Google may frame.
    'frame-src': isRealGoogle ? [GOOGLE_IDENTITY_SERVICES] : ["'none'"],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
    ...(isHttps(config) ? { 'upgrade-insecure-requests': [] } : {}),
  };
}

function isHttps(config: SecurityHeadersConfig): boolean {
  return config.publicUrl.startsWith('https://');
}

export const securityHeadersPlugin = fp<{ config: SecurityHeadersConfig }>(
  async function securityHeadersPlugin(app, { config }) {
    const { google, apple } = app.identity.providers;
    const providerScripts = [google?.scriptUrl, apple?.scriptUrl].filter(
      (url): url is string => url !== undefined,
    );
    // helmet's middleware is made once, here: @fastify/helmet made it anew on every request
    // (parsing the policy each time, a tenth of the profile call's time).
    const setSecurityHeaders = helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: webAppPolicy(config, providerScripts),
      },
      // Google's and Apple's popups answer through window.opener, which `same-origin` would cut.
      crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
      referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
      // Only when PUBLIC_URL is https (browsers ignore it over http). Not includeSubDomains: the
      // product may live beside other hosts of its domain that it does not speak for.
      strictTransportSecurity: isHttps(config)
        ? { maxAge: ONE_YEAR_SECONDS, includeSubDomains: false }
        : false,
      xFrameOptions: { action: 'deny' },
    });
    app.addHook('onRequest', function securityHeaders(request, reply, done) {
      setSecurityHeaders(request.raw, reply.raw, (error?: unknown) => {
        done(error instanceof Error ? error : undefined);
      });
    });
  },
  // Registered before every route: Fastify gives a route the hooks that exist when it is added.
  { name: 'security-headers', dependencies: ['identity'] },
);
