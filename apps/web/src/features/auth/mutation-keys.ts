/**
 * The auth feature's mutation keys, in a file of their own: the auth layout, in every page's first
 * JavaScript, reads them, and must not bring the feature's calls and texts along.
 */
export const authMutationKeys = {
  /** Every way of signing in, so the auth layout can tell one is finishing. */
  signIn: () => ['auth', 'sign-in'] as const,
};
