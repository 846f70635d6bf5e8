/**
 * Every API path of spec §7 (plus the two Decision 2 adds), relative to the API base URL
 * (`/api` when the web app is served by the API itself). Spelled once for both sides.
 */
export const apiPaths = {
  health: '/health',
  register: '/auth/local/register/email',
  login: '/auth/local/login/email',
  refresh: '/auth/refresh',
  logout: '/auth/logout',
  resetPassword: '/auth/reset-password',
  resetPasswordConfirm: '/auth/reset-password/confirm',
  changePassword: '/auth/change-password',
  changeEmail: '/auth/change-email',
  verifyEmail: '/auth/change-email/verify',
  googleVerifyToken: '/auth/oauth/google/verify-token',
  appleVerifyToken: '/auth/oauth/apple/verify-token',
  socialProviders: '/auth/oauth/providers',
  appleNonce: '/auth/oauth/apple/nonce',
  profile: '/users/profile',
  subscriptions: '/users/subscriptions/personal',
  plans: '/payments/stripe/plans',
  startCheckout: '/payments/stripe/new',
  checkoutSession: (sessionId: string): string =>
    `/payments/stripe/session/${encodeURIComponent(sessionId)}`,
  customerPortal: '/payments/stripe/customer-portal',
  stripeWebhook: '/payments/stripe/webhook',
} as const;

/** Calls under this prefix never get a token refresh attempt before them (spec §7, Refresh). */
export const AUTH_PATH_PREFIX = '/auth/';
