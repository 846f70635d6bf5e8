/**
 * The support desk's addresses, spelled once, beside the desk rather than in config/paths.ts:
 * that table is in every page's first JavaScript, and no visitor or member page may carry a byte
 * of the desk (scripts/initial-javascript.test.ts). The site's router mounts this tree at
 * `/ops/*` (app/router.tsx); page-modules.test.tsx draws each of these addresses through it.
 */
export const deskPaths = {
  /** Find a member. */
  root: { path: '/ops', getHref: (): string => '/ops' },
  /** A member's whole story. */
  member: {
    path: '/ops/members/:id',
    getHref: (id: string): string => `/ops/members/${encodeURIComponent(id)}`,
  },
  /** His dashboard and Purchase History as he sees them, read only. */
  viewAs: {
    path: '/ops/members/:id/view',
    getHref: (id: string): string => `/ops/members/${encodeURIComponent(id)}/view`,
  },
  audit: { path: '/ops/audit', getHref: (): string => '/ops/audit' },
} as const;
