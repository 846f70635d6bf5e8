// Which lazily loaded modules draw each address, for the build: it writes a copy of index.html per
// address that preloads their code with the entry (scripts/page-preloads.ts), and the server
// answers the address with it (the API's plugins/web-app.ts), so a page's code downloads beside
// the entry instead of after it. Paths are spelled out rather than taken from config/paths.ts,
// which the build cannot load; page-modules.test.tsx holds both to the router. Addresses with a
// parameter (/ops/members/:id) have no copy of their own: they get index.html, and their code
// follows the entry.
export const pageModulesByPath: Readonly<Record<string, readonly string[]>> = {
  '/home': ['src/features/marketing/pages/home-page.tsx'],
  '/auth/login': ['src/features/auth/pages/login-page.tsx'],
  '/auth/register': ['src/features/auth/pages/register-page.tsx'],
  '/auth/reset': ['src/features/auth/pages/reset-page.tsx'],
  '/account/recover/new': ['src/features/auth/pages/recover-page.tsx'],
  '/account/verify-email': ['src/features/account/pages/verify-email-page.tsx'],
  '/account/cancel-email-change': ['src/features/account/pages/cancel-email-change-page.tsx'],
  '/account/sign-in-not-me': ['src/features/account/pages/sign-in-not-me-page.tsx'],
  '/account/deleted': ['src/features/account/pages/account-deleted-page.tsx'],
  '/account/unsubscribe': ['src/features/account/pages/unsubscribe-page.tsx'],
  '/purchase': ['src/features/purchase/pages/purchase-page.tsx'],
  '/purchase/complete': ['src/features/purchase/pages/purchase-complete-page.tsx'],
  '/dashboard': [
    'src/app/layouts/member-layout.tsx',
    'src/features/premium/pages/dashboard-page.tsx',
  ],
  '/dashboard/history': [
    'src/app/layouts/member-layout.tsx',
    'src/features/premium/pages/history-page.tsx',
  ],
  '/dashboard/settings': [
    'src/app/layouts/member-layout.tsx',
    'src/features/account/pages/settings-page.tsx',
  ],
  '/ops': [
    'src/app/routes/support-desk-routes.tsx',
    'src/features/support-desk/pages/find-member-page.tsx',
  ],
  '/ops/audit': [
    'src/app/routes/support-desk-routes.tsx',
    'src/features/support-desk/pages/audit-page.tsx',
  ],
};

/**
 * The visitors' pages the build draws into their HTML (scripts/prerender.mjs), so they show before
 * their code has arrived. Each draws the same for every visitor on its first render: nothing from
 * the address, the session or the clock (the tokens are read after hydration). Pages that read a
 * code from their link, and the member area, start empty as before.
 */
export const prerenderedPaths: readonly string[] = [
  '/home',
  '/auth/login',
  '/auth/register',
  '/auth/reset',
  '/purchase',
];

/**
 * The member area: drawn by the build only as the frame a member sees while his profile loads
 * (site-layout.tsx's MemberLoadingFrame), which the app replaces rather than takes over.
 */
export const framedPaths: readonly string[] = [
  '/dashboard',
  '/dashboard/history',
  '/dashboard/settings',
];
