import { env } from './env';

/**
 * Every route of the web app, spelled once. `getHref` builds a link, `path` is what the
 * router matches.
 */
export const paths = {
  root: { path: '/', getHref: (): string => '/' },
  home: { path: '/home', getHref: (): string => '/home' },
  auth: {
    login: {
      path: '/auth/login',
      /** `r` carries the path to return to after signing in. */
      getHref: (returnTo?: string | null): string =>
        returnTo ? `/auth/login?r=${encodeURIComponent(returnTo)}` : '/auth/login',
    },
    register: { path: '/auth/register', getHref: (): string => '/auth/register' },
    reset: { path: '/auth/reset', getHref: (): string => '/auth/reset' },
  },
  account: {
    recover: { path: '/account/recover/new', getHref: (): string => '/account/recover/new' },
    verifyEmail: { path: '/account/verify-email', getHref: (): string => '/account/verify-email' },
    /** "This was not me", from the notice mailed to the old address when its change is asked. */
    cancelEmailChange: {
      path: '/account/cancel-email-change',
      getHref: (): string => '/account/cancel-email-change',
    },
    /** "This wasn't me", from the notice of a sign-in from a new device or network. */
    signInNotMe: {
      path: '/account/sign-in-not-me',
      getHref: (): string => '/account/sign-in-not-me',
    },
    /** "Stop these reminders", from the mail sent before premium ends: asks before it acts. */
    unsubscribe: { path: '/account/unsubscribe', getHref: (): string => '/account/unsubscribe' },
    /** Where deleting the account ends: no one is signed in any more. */
    deleted: { path: '/account/deleted', getHref: (): string => '/account/deleted' },
  },
  dashboard: {
    root: { path: '/dashboard', getHref: (): string => '/dashboard' },
    settings: { path: '/dashboard/settings', getHref: (): string => '/dashboard/settings' },
    history: { path: '/dashboard/history', getHref: (): string => '/dashboard/history' },
  },
  purchase: {
    root: { path: '/purchase', getHref: (): string => '/purchase' },
    complete: { path: '/purchase/complete', getHref: (): string => '/purchase/complete' },
  },
} as const;

/** Pages of the marketing site and the app store, linked from the footer and banner. */
export const externalLinks = {
  features: `${env.marketingSiteUrl}/features`,
  support: `${env.marketingSiteUrl}/support`,
  privacyPolicy: `${env.marketingSiteUrl}/privacy`,
  termsOfUse: `${env.marketingSiteUrl}/terms`,
  appStore: env.appStoreUrl,
  supportEmail: `mailto:${env.supportEmail}`,
} as const;

/**
 * A 401 sends the person to login with the current path as `r`, except on these pages,
 * where a visitor is expected (the auth pages, checkout, the emailed-link pages and the page
 * that says an account was deleted).
 */
const LOGIN_REDIRECT_EXEMPT_PREFIXES = [
  '/auth',
  '/purchase',
  '/account/recover',
  '/account/verify-email',
  '/account/cancel-email-change',
  '/account/sign-in-not-me',
  '/account/deleted',
];

export function isExemptFromLoginRedirect(pathname: string): boolean {
  return LOGIN_REDIRECT_EXEMPT_PREFIXES.some(
    (prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`),
  );
}

/**
 * `r` is followed only when it is a path of this site: "/dashboard?x=1" yes;
 * "https://evil.example", "//evil.example" or "/\\evil.example" no.
 */
export function safeReturnPath(candidate: string | null | undefined): string | undefined {
  if (
    !candidate ||
    !candidate.startsWith('/') ||
    candidate.startsWith('//') ||
    candidate.includes('\\')
  ) {
    return undefined;
  }
  try {
    const base = 'https://this.site';
    const url = new URL(candidate, base);
    return url.origin === base ? `${url.pathname}${url.search}${url.hash}` : undefined;
  } catch {
    return undefined;
  }
}

/** Where signing in leads: back to `r` when it is a path of this site, else to /dashboard. */
export function pathAfterSignIn(returnTo: string | null | undefined): string {
  return safeReturnPath(returnTo) ?? paths.dashboard.root.getHref();
}
