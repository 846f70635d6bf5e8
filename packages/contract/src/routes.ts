// Where each API call lives: method, path (relative to the API base URL, `/api` when the web app
// is served by the API itself) and whether it needs a signed-in session. The schemas of each
// call join these in endpoints.ts; this table stays free of zod so that the web app's first page
// can call the API without loading a schema library.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  method: HttpMethod;
  /** Fastify's syntax: `:name` is a path parameter. */
  path: string;
  /** True when the call needs `Authorization: Bearer <access token>`. */
  auth: boolean;
  /** Other spellings the server also answers (the mobile app's older builds use them). */
  aliases?: readonly string[];
}

export const apiRoutes = {
  health: { method: 'GET', path: '/health', auth: false },
  ready: { method: 'GET', path: '/ready', auth: false },

  register: { method: 'POST', path: '/auth/local/register/email', auth: false },
  login: { method: 'POST', path: '/auth/local/login/email', auth: false },
  refresh: { method: 'POST', path: '/auth/refresh', auth: false },
  logout: { method: 'POST', path: '/auth/logout', auth: false },
  requestPasswordReset: { method: 'POST', path: '/auth/reset-password', auth: false },
  confirmPasswordReset: { method: 'POST', path: '/auth/reset-password/confirm', auth: false },
  changePassword: { method: 'POST', path: '/auth/change-password', auth: true },
  requestEmailChange: { method: 'POST', path: '/auth/change-email', auth: true },
  confirmEmailChange: { method: 'POST', path: '/auth/change-email/verify', auth: false },
  cancelEmailChange: { method: 'POST', path: '/auth/change-email/cancel', auth: false },
  reportSignIn: { method: 'POST', path: '/auth/sign-ins/not-me', auth: false },

  setUpTwoStep: { method: 'POST', path: '/auth/mfa/totp/setup', auth: true },
  confirmTwoStep: { method: 'POST', path: '/auth/mfa/totp/confirm', auth: true },
  turnOffTwoStep: { method: 'POST', path: '/auth/mfa/totp/disable', auth: true },
  renewRecoveryCodes: { method: 'POST', path: '/auth/mfa/recovery-codes', auth: true },
  verifyTwoStep: { method: 'POST', path: '/auth/mfa/verify', auth: false },

  signInWithGoogle: {
    method: 'POST',
    path: '/auth/oauth/google/verify-token',
    auth: false,
    aliases: ['/auth/oauth/Google/verify-token'],
  },
  signInWithApple: {
    method: 'POST',
    path: '/auth/oauth/apple/verify-token',
    auth: false,
    aliases: ['/auth/oauth/Apple/verify-token'],
  },
  issueAppleNonce: { method: 'POST', path: '/auth/oauth/apple/nonce', auth: false },
  listSocialProviders: { method: 'GET', path: '/auth/oauth/providers', auth: false },

  passkeyRegistrationOptions: {
    method: 'POST',
    path: '/auth/passkeys/register/options',
    auth: true,
  },
  registerPasskey: { method: 'POST', path: '/auth/passkeys/register/verify', auth: true },
  passkeySignInOptions: { method: 'POST', path: '/auth/passkeys/login/options', auth: false },
  signInWithPasskey: { method: 'POST', path: '/auth/passkeys/login/verify', auth: false },

  readProfile: { method: 'GET', path: '/users/profile', auth: true },
  listPurchases: { method: 'GET', path: '/users/subscriptions/personal', auth: true },
  listSessions: { method: 'GET', path: '/users/sessions', auth: true },
  exportData: { method: 'GET', path: '/users/export', auth: true },
  readPreferences: { method: 'GET', path: '/users/preferences', auth: true },
  updatePreferences: { method: 'PUT', path: '/users/preferences', auth: true },
  unsubscribe: { method: 'POST', path: '/users/unsubscribe', auth: false },
  listSignIns: { method: 'GET', path: '/users/sign-ins', auth: true },
  endSession: { method: 'DELETE', path: '/users/sessions/:id', auth: true },
  endOtherSessions: { method: 'POST', path: '/users/sessions/revoke-others', auth: true },
  listPasskeys: { method: 'GET', path: '/users/passkeys', auth: true },
  renamePasskey: { method: 'PATCH', path: '/users/passkeys/:id', auth: true },
  removePasskey: { method: 'DELETE', path: '/users/passkeys/:id', auth: true },

  // The support desk (ADR 020): every call under /ops needs an operator who proved a second
  // factor within 12 hours; these two are how his browser gets there.
  operatorStatus: { method: 'GET', path: '/users/operator', auth: true },
  stepUp: { method: 'POST', path: '/auth/mfa/step-up', auth: true },
  searchMembers: { method: 'GET', path: '/ops/members', auth: true },
  getMember: { method: 'GET', path: '/ops/members/:id', auth: true },
  getMemberTimeline: { method: 'GET', path: '/ops/members/:id/timeline', auth: true },
  viewAsMember: { method: 'GET', path: '/ops/members/:id/view', auth: true },
  grantDays: { method: 'POST', path: '/ops/members/:id/grants', auth: true },
  removeGrant: { method: 'DELETE', path: '/ops/grants/:id', auth: true },
  refundPurchase: { method: 'POST', path: '/ops/purchases/:id/refund', auth: true },
  revokeMemberSessions: { method: 'POST', path: '/ops/members/:id/sessions/revoke', auth: true },
  resendMemberMail: { method: 'POST', path: '/ops/members/:id/mails', auth: true },
  addMemberNote: { method: 'POST', path: '/ops/members/:id/notes', auth: true },
  listAudit: { method: 'GET', path: '/ops/audit', auth: true },
  deleteAccount: { method: 'POST', path: '/users/delete', auth: true },
  listEmailChangeUndoWindows: { method: 'GET', path: '/users/email-change-undo', auth: true },
  closeEmailChangeUndoWindows: {
    method: 'POST',
    path: '/users/email-change-undo/close',
    auth: true,
  },

  listPlans: { method: 'GET', path: '/payments/stripe/plans', auth: false },
  startCheckout: { method: 'POST', path: '/payments/stripe/new', auth: false },
  describeCheckout: { method: 'GET', path: '/payments/stripe/session/:session', auth: false },
  openCustomerPortal: { method: 'GET', path: '/payments/stripe/customer-portal', auth: true },
  receiveStripeEvent: { method: 'POST', path: '/payments/stripe/webhook', auth: false },
  receiveAppStoreNotification: {
    method: 'POST',
    path: '/payments/apple/notifications',
    auth: false,
  },
  recordAppStoreTransaction: { method: 'POST', path: '/payments/apple/transactions', auth: true },
  claimAppStorePurchase: { method: 'POST', path: '/payments/apple/claim', auth: true },
} as const satisfies Record<string, Route>;

export type ApiRouteName = keyof typeof apiRoutes;

/** Calls under this prefix never get a token refresh attempt before them. */
export const AUTH_PATH_PREFIX = '/auth/';

/** A route's path with its `:name` parameters filled in (URL-encoded). */
export function pathTo(route: Route, params: Record<string, string> = {}): string {
  return route.path.replace(/:(\w+)/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name} of ${route.path}`);
    return encodeURIComponent(value);
  });
}
