// Every call of the API, each one object: route, schemas, and every status it answers with.
import {
  AppleVerifyTokenRequestSchema,
  CancelEmailChangeRequestSchema,
  ChangeEmailRequestSchema,
  ChangePasswordRequestSchema,
  GoogleVerifyTokenRequestSchema,
  LoginRequestSchema,
  LogoutRequestSchema,
  RefreshRequestSchema,
  RegisteredUserSchema,
  RegisterRequestSchema,
  ResetPasswordConfirmRequestSchema,
  ResetPasswordRequestSchema,
  SignInNonceResponseSchema,
  SignInResponseSchema,
  SocialProvidersResponseSchema,
  TokenPairSchema,
  VerifyEmailRequestSchema,
} from './auth';
import { defineEndpoint, type Endpoint } from './endpoint';
import { AcknowledgementSchema, HealthSchema } from './errors';
import { fieldMessages } from './field-messages';
import { DataExportSchema } from './data-export';
import { PreferencesSchema, UpdatePreferencesRequestSchema } from './preferences';
import {
  PASSKEY_CHALLENGE_SECONDS,
  PasskeyCreationOptionsSchema,
  PasskeyRegistrationOptionsRequestSchema,
  PasskeyItemSchema,
  PasskeyParamsSchema,
  RemovePasskeyRequestSchema,
  PasskeyRequestOptionsSchema,
  PasskeySignInRequestSchema,
  PasskeysResponseSchema,
  RegisterPasskeyRequestSchema,
  RenamePasskeyRequestSchema,
} from './passkeys';
import {
  CheckoutSessionParamsSchema,
  CheckoutSessionSchema,
  CustomerPortalResponseSchema,
  PlansResponseSchema,
  StartCheckoutRequestSchema,
  StartCheckoutResponseSchema,
  StripeEventReceivedSchema,
  StripeEventSchema,
  HANDLED_STRIPE_EVENT_TYPES,
  AppStoreNotificationReceivedSchema,
  AppStoreNotificationRequestSchema,
  AppStoreTransactionRequestSchema,
  AppStoreTransactionResponseSchema,
} from './payments';
import { AppStoreClaimRequestSchema } from './app-store-claims';
import {
  AuditQuerySchema,
  AuditResponseSchema,
  EndedSessionsSchema,
  GrantDaysRequestSchema,
  GrantSchema,
  MemberSearchResponseSchema,
  MemberStorySchema,
  MemberViewSchema,
  NoteSchema,
  OperatorStatusSchema,
  OpsIdParamsSchema,
  PremiumEndSchema,
  RefundRequestSchema,
  RefundSchema,
  ResendMailRequestSchema,
  StepUpResponseSchema,
  TimelineQuerySchema,
  TimelineResponseSchema,
} from './ops';
import {
  MemberSearchQuerySchema,
  NoteRequestSchema,
  ReasonRequestSchema,
  StepUpRequestSchema,
  SUPPORT_MAX_GRANT_DAYS,
} from './ops-forms';
import { type ApiRouteName, apiRoutes as routes } from './routes';
import { ReportSignInRequestSchema, SignInsResponseSchema } from './sign-ins';
import {
  MfaVerifyRequestSchema,
  RecoveryCodesResponseSchema,
  RenewRecoveryCodesRequestSchema,
  TwoStepConfirmRequestSchema,
  TwoStepDisableRequestSchema,
  TwoStepSetupResponseSchema,
} from './two-step';
import {
  DeleteAccountRequestSchema,
  EmailChangeUndoWindowsSchema,
  MessageSchema,
  ProfileSchema,
  SessionParamsSchema,
  SessionsResponseSchema,
  PurchasesResponseSchema,
} from './users';
import { UnsubscribeQuerySchema } from './unsubscribe';

/** How long a passkey challenge (registration or sign-in) may be answered. */
const PASSKEY_CHALLENGE_MINUTES = PASSKEY_CHALLENGE_SECONDS / 60;

/** The rule every call that sets a password states, for the reference page. */
const COMMON_PASSWORD_RULE = `One of the most common passwords (compared without regard to case or Unicode compatibility forms) answers 400 "${fieldMessages.passwordTooCommon}". Where the server checks Have I Been Pwned (production, by default), a breached one answers 400 "${fieldMessages.passwordBreached}".`;

/** What every sign-in says of the second step, for the reference page. */
const TWO_STEP_SIGN_IN =
  'With two-step sign-in on, the answer is 200 `{ mfaRequired: true, mfaToken }` and no tokens: `POST /auth/mfa/verify` with a code then gives them.';

/** What every change of credentials asks for while two-step sign-in is on. */
const SECOND_FACTOR_RULE =
  'While two-step sign-in is on, `code` (a current code from the authenticator app, or an unused recovery code) is needed too: 400 without it or with a wrong one.';

/** What a call that asks Stripe answers when Stripe refuses or fails (never Stripe's status or text). */
const STRIPE_FAILURES =
  "When Stripe refuses or fails the call made for it, 502 with the generic message; 503 with Retry-After when that may pass (Stripe's rate limit, an outage). Never 401: that is only about the caller's session.";

/**
 * Each call named by its key in the table below: the OpenAPI document's `operationId`, after which
 * a client generated from it names the call's function (`login`, `readProfile`), as this contract
 * does.
 */
function namedByKey<T extends Record<string, Endpoint>>(
  calls: T,
): { [K in keyof T]: T[K] & { operationId: K & string } } {
  return Object.fromEntries(
    Object.entries(calls).map(([name, call]) => [name, { ...call, operationId: name }]),
  ) as { [K in keyof T]: T[K] & { operationId: K & string } };
}

export const endpoints = namedByKey({
  health: defineEndpoint(routes.health, {
    tag: 'Health',
    summary: 'Whether this server process is alive (liveness: it checks nothing beyond itself).',
    success: { 200: HealthSchema },
    readsNothingBehind: true,
  }),
  ready: defineEndpoint(routes.ready, {
    tag: 'Health',
    summary: 'Whether this server process can serve calls (readiness, for load balancers).',
    description:
      "Answers 200 while the database and, when REDIS_URL is set, Redis answer within 2 seconds; 503 otherwise, naming what does not answer, and from the moment the process is told to stop (SIGTERM: 'The server is shutting down', while it still serves other calls for SHUTDOWN_DRAIN_SECONDS).",
    success: { 200: HealthSchema },
    errors: [503],
  }),

  register: defineEndpoint(routes.register, {
    tag: 'Account',
    summary: 'Create an account with email and password.',
    description: `At most REGISTRATIONS_PER_ADDRESS_PER_HOUR (10) new accounts per client address and hour; every registration also counts against the address's AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR (200). ${COMMON_PASSWORD_RULE}`,
    body: RegisterRequestSchema,
    success: { 201: RegisteredUserSchema },
    errors: [409, 429],
  }),
  login: defineEndpoint(routes.login, {
    tag: 'Account',
    summary: 'Sign in with email and password.',
    description:
      'After five failed attempts for one account from one client address, further attempts from ' +
      'that address wait 30 s, then twice as long after each further failure (up to 15 minutes): ' +
      'answered 429 with Retry-After, whatever the password. Past 50 wrong passwords for one ' +
      'account within an hour from addresses it never signed in from, or past ' +
      'AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR (200) wrong passwords from one address for such ' +
      'accounts, a wrong password is answered 429 instead of 401; the right one still signs in. ' +
      TWO_STEP_SIGN_IN,
    body: LoginRequestSchema,
    success: { 200: SignInResponseSchema },
    errors: [401, 429],
  }),
  refresh: defineEndpoint(routes.refresh, {
    tag: 'Account',
    summary: 'Exchange a refresh token for a new token pair (the old refresh token is spent).',
    description:
      'At most 30 renewals per session and minute (about 4 an hour in normal use); a 429 leaves ' +
      'the refresh token unspent, to be tried again after Retry-After.',
    body: RefreshRequestSchema,
    success: { 200: TokenPairSchema },
    errors: [401, 429],
  }),
  logout: defineEndpoint(routes.logout, {
    tag: 'Account',
    summary: 'End the session of a refresh token.',
    description:
      'Idempotent for a refresh token of ours whose session has ended; one that is not a live token of ours (malformed, forged, expired) answers 401.',
    body: LogoutRequestSchema,
    success: { 200: AcknowledgementSchema },
    errors: [401, 429],
  }),
  requestPasswordReset: defineEndpoint(routes.requestPasswordReset, {
    tag: 'Account',
    summary: 'Email a link to choose a new password (same answer whether the account exists).',
    description:
      "Every request counts against the client address's AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR (200), a budget registrations share and wrong passwords do not.",
    body: ResetPasswordRequestSchema,
    success: { 200: AcknowledgementSchema },
    errors: [429],
  }),
  confirmPasswordReset: defineEndpoint(routes.confirmPasswordReset, {
    tag: 'Account',
    summary: "Set a new password with the emailed link's code; every session ends.",
    description: COMMON_PASSWORD_RULE,
    body: ResetPasswordConfirmRequestSchema,
    success: { 200: AcknowledgementSchema },
    errors: [429],
  }),
  changePassword: defineEndpoint(routes.changePassword, {
    tag: 'Account',
    summary: 'Change the password; every other session ends.',
    description: `${COMMON_PASSWORD_RULE} ${SECOND_FACTOR_RULE}`,
    body: ChangePasswordRequestSchema,
    success: { 200: AcknowledgementSchema },
    errors: [429],
  }),
  requestEmailChange: defineEndpoint(routes.requestEmailChange, {
    tag: 'Account',
    summary: 'Email a confirmation link to the new address (and a notice to the current one).',
    description: SECOND_FACTOR_RULE,
    body: ChangeEmailRequestSchema,
    success: { 200: AcknowledgementSchema },
    errors: [409, 429],
  }),
  confirmEmailChange: defineEndpoint(routes.confirmEmailChange, {
    tag: 'Account',
    summary: "Move the account to the new address with the emailed link's code.",
    body: VerifyEmailRequestSchema,
    success: { 200: AcknowledgementSchema },
    errors: [409, 429],
  }),
  cancelEmailChange: defineEndpoint(routes.cancelEmailChange, {
    tag: 'Account',
    summary: '"This wasn\'t me": cancel (or undo) an email change and end every session.',
    description:
      'The code comes from the notice mailed to the old address when the change was asked for ' +
      '(valid 72 hours). A change not yet confirmed is cancelled; one already confirmed is undone ' +
      '(the account gets its old address back). Every session of the account ends either way. ' +
      'The oldest open link wins: a link voids only the links issued after it (ADR 016).',
    body: CancelEmailChangeRequestSchema,
    success: { 200: AcknowledgementSchema },
    errors: [429],
  }),

  setUpTwoStep: defineEndpoint(routes.setUpTwoStep, {
    tag: 'Two-step sign-in',
    summary: 'A new authenticator secret, off until confirmed with a code.',
    description:
      'TOTP: SHA-1, 6 digits, 30-second steps. A new setup replaces one not yet confirmed; 409 while two-step sign-in is on.',
    success: { 200: TwoStepSetupResponseSchema },
    errors: [409, 429],
  }),
  confirmTwoStep: defineEndpoint(routes.confirmTwoStep, {
    tag: 'Two-step sign-in',
    summary: 'Turns two-step sign-in on with a code from the app; answers the 10 recovery codes.',
    description:
      'The recovery codes are shown this once (only their hashes are kept); each serves one sign-in. Sessions already open stay open.',
    body: TwoStepConfirmRequestSchema,
    success: { 200: RecoveryCodesResponseSchema },
    errors: [409, 429],
  }),
  turnOffTwoStep: defineEndpoint(routes.turnOffTwoStep, {
    tag: 'Two-step sign-in',
    summary: 'Turns two-step sign-in off with a current code or a recovery code.',
    body: TwoStepDisableRequestSchema,
    success: { 200: MessageSchema },
    errors: [409, 429],
  }),
  renewRecoveryCodes: defineEndpoint(routes.renewRecoveryCodes, {
    tag: 'Two-step sign-in',
    summary: 'Ten new recovery codes for a current code; the old ones stop working.',
    body: RenewRecoveryCodesRequestSchema,
    success: { 200: RecoveryCodesResponseSchema },
    errors: [409, 429],
  }),
  verifyTwoStep: defineEndpoint(routes.verifyTwoStep, {
    tag: 'Two-step sign-in',
    summary:
      "A sign-in's second step: the mfaToken with a code (or a recovery code) gives the tokens.",
    description:
      'The mfaToken lives 5 minutes, serves one sign-in and dies when the password changes meanwhile, or after 5 wrong codes. A code is taken once. Wrong codes count like wrong passwords (429 with Retry-After past the same limits).',
    body: MfaVerifyRequestSchema,
    success: { 200: TokenPairSchema },
    errors: [401, 429],
  }),
  reportSignIn: defineEndpoint(routes.reportSignIn, {
    tag: 'Account',
    summary: '"This wasn\'t me": a sign-in from a new device was not the owner; end every session.',
    description:
      'The code comes from the notice mailed when the account signs in from a device and network ' +
      'it has not used in 30 days (valid 7 days, single use). Every session ends, the password is ' +
      "cleared and a link to choose a new one is mailed to the account's address (ADR 019).",
    body: ReportSignInRequestSchema,
    success: { 200: AcknowledgementSchema },
    errors: [429],
  }),

  signInWithGoogle: defineEndpoint(routes.signInWithGoogle, {
    tag: 'Sign in with Google and Apple',
    summary: 'Sign in with a Google Identity Services code (the server exchanges it).',
    description: TWO_STEP_SIGN_IN,
    body: GoogleVerifyTokenRequestSchema,
    success: { 200: SignInResponseSchema },
    // 409: a new Google identity whose address an account has, where Google does not answer for it.
    errors: [401, 403, 404, 409, 429, 503],
  }),
  signInWithApple: defineEndpoint(routes.signInWithApple, {
    tag: 'Sign in with Google and Apple',
    summary: 'Sign in with an Apple identity token carrying a nonce from the nonce call.',
    description: TWO_STEP_SIGN_IN,
    body: AppleVerifyTokenRequestSchema,
    success: { 200: SignInResponseSchema },
    errors: [401, 403, 404, 429, 503],
  }),
  issueAppleNonce: defineEndpoint(routes.issueAppleNonce, {
    tag: 'Sign in with Google and Apple',
    summary: 'A single-use nonce for the next Apple sign-in (valid 10 minutes).',
    success: { 200: SignInNonceResponseSchema },
    errors: [429],
  }),
  listSocialProviders: defineEndpoint(routes.listSocialProviders, {
    tag: 'Sign in with Google and Apple',
    summary: 'Which providers are on, with the public client ids and scripts to load.',
    success: { 200: SocialProvidersResponseSchema },
    errors: [429],
  }),

  passkeyRegistrationOptions: defineEndpoint(routes.passkeyRegistrationOptions, {
    tag: 'Passkeys',
    summary: "Options for the browser's passkey dialog, to add a passkey to the member's account.",
    description: `Hand them to navigator.credentials.create() (@simplewebauthn/browser's startRegistration), then send the result to ${routes.registerPasskey.path} within ${PASSKEY_CHALLENGE_MINUTES} minutes, from the same session: the challenge is single use and bound to both. The member's passkeys are excluded (excludeCredentials), so one authenticator never holds two of his. While two-step sign-in is on, the body carries a current code or a recovery code (\`code\`): 400 without it or with a wrong one, as a passkey signs in with no code.`,
    body: PasskeyRegistrationOptionsRequestSchema,
    success: { 200: PasskeyCreationOptionsSchema },
    errors: [400, 429],
  }),
  registerPasskey: defineEndpoint(routes.registerPasskey, {
    tag: 'Passkeys',
    summary: 'Adds the passkey the browser made with the registration options.',
    description:
      'Verified against the challenge (single use, 5 minutes, this session), the relying party id and origin of PUBLIC_URL, and user verification. Without a name, the passkey is named after the browser and system it was made on. A credential already added to any account answers 409; a response that does not verify answers 400.',
    body: RegisterPasskeyRequestSchema,
    success: { 201: PasskeyItemSchema },
    errors: [409, 429],
  }),
  passkeySignInOptions: defineEndpoint(routes.passkeySignInOptions, {
    tag: 'Passkeys',
    summary: "Options for signing in with a passkey (any of the browser's, no email needed).",
    description: `A challenge for navigator.credentials.get() (startAuthentication), also in the email field's autofill (conditional mediation): no allowCredentials, user verification preferred. Single use, valid ${PASSKEY_CHALLENGE_MINUTES} minutes. Counts against SIGN_IN_PAGE_REQUESTS_PER_MINUTE, as the sign-in page asks for one on every load.`,
    success: { 200: PasskeyRequestOptionsSchema },
    errors: [429],
  }),
  signInWithPasskey: defineEndpoint(routes.signInWithPasskey, {
    tag: 'Passkeys',
    summary: 'Sign in with a passkey: the signed challenge of the sign-in options.',
    description:
      'A complete sign-in (no second step): the session it opens has the method "passkey". An unknown or removed passkey, a wrong signature, a used or expired challenge and a counter that went backwards all answer 401 with one message. Failures count against AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR (200), as wrong passwords do.',
    body: PasskeySignInRequestSchema,
    success: { 200: TokenPairSchema },
    errors: [401, 429],
  }),

  readProfile: defineEndpoint(routes.readProfile, {
    tag: 'Profile',
    summary: 'The signed-in member, and until when premium lasts.',
    success: { 200: ProfileSchema },
  }),
  listPurchases: defineEndpoint(routes.listPurchases, {
    tag: 'Profile',
    summary: "The member's purchases, from the web and the App Store, newest first.",
    success: { 200: PurchasesResponseSchema },
  }),

  exportData: defineEndpoint(routes.exportData, {
    tag: 'Profile',
    summary:
      'Download your data: one JSON document, an attachment named kegel-coach-data-YYYY-MM-DD.json.',
    description:
      'Profile, sign-in identities (provider and email), sessions, purchases and refunds, App Store subscriptions, passkeys (name, when added and last used, transports), whether two-step sign-in is on, the emails sent to the member (template, time, recipient), the sign-in history (90 days of sign-ins and failed attempts), his preferences (with when the Apple consent was given or withdrawn) and the Apple refund requests answered with that consent. Never a password hash, token, code, two-step secret, recovery code, passkey key or email body.',
    success: { 200: DataExportSchema },
    successHeaders: {
      'Content-Disposition':
        'attachment; filename="kegel-coach-data-YYYY-MM-DD.json" (the day of the export, UTC)',
    },
  }),
  readPreferences: defineEndpoint(routes.readPreferences, {
    tag: 'Profile',
    summary:
      'What the member chose: sharing his usage with Apple when he asks Apple for a refund (and when he chose it), and mails before his premium ends.',
    success: { 200: PreferencesSchema },
  }),
  updatePreferences: defineEndpoint(routes.updatePreferences, {
    tag: 'Profile',
    summary: 'Changes any of the preferences; the others stay as they are. Answers all of them.',
    body: UpdatePreferencesRequestSchema,
    success: { 200: PreferencesSchema },
  }),
  unsubscribe: defineEndpoint(routes.unsubscribe, {
    tag: 'Profile',
    summary:
      'One-click unsubscribe (RFC 8058): turns off the mails before premium ends for the member the signed token names, without a session.',
    description:
      'Mail clients POST `List-Unsubscribe=One-Click` as application/x-www-form-urlencoded; the web page posts no body. A GET of the same link turns nothing off: it answers 303 to the page /account/unsubscribe, which asks first. 400 for a token that is malformed or not signed by this server, 404 when its account is gone.',
    query: UnsubscribeQuerySchema,
    success: { 200: MessageSchema },
    errors: [404],
  }),
  listSignIns: defineEndpoint(routes.listSignIns, {
    tag: 'Profile',
    summary:
      "Sign-in history: the member's latest 20 sign-ins and failed password attempts, newest first.",
    success: { 200: SignInsResponseSchema },
  }),
  listSessions: defineEndpoint(routes.listSessions, {
    tag: 'Profile',
    summary:
      "Where the member is signed in: his open sessions, last used first, the caller's marked current.",
    success: { 200: SessionsResponseSchema },
  }),
  endSession: defineEndpoint(routes.endSession, {
    tag: 'Profile',
    summary: "Signs one of the member's sessions out (404 for anyone else's).",
    params: SessionParamsSchema,
    success: { 200: MessageSchema },
    errors: [404],
  }),
  endOtherSessions: defineEndpoint(routes.endOtherSessions, {
    tag: 'Profile',
    summary: 'Signs every session of the member out but the caller.',
    success: { 200: MessageSchema },
  }),
  listPasskeys: defineEndpoint(routes.listPasskeys, {
    tag: 'Passkeys',
    summary: "The member's passkeys, oldest first: name, when added, when last used.",
    success: { 200: PasskeysResponseSchema },
  }),
  renamePasskey: defineEndpoint(routes.renamePasskey, {
    tag: 'Passkeys',
    summary: "Renames one of the member's passkeys (404 for anyone else's).",
    params: PasskeyParamsSchema,
    body: RenamePasskeyRequestSchema,
    success: { 200: PasskeyItemSchema },
    errors: [404],
  }),
  removePasskey: defineEndpoint(routes.removePasskey, {
    tag: 'Passkeys',
    summary: "Removes one of the member's passkeys (404 for anyone else's).",
    description:
      'Refused with 409 when it is the last way to sign in: an account with no password, no Google or Apple identity and this one passkey. While two-step sign-in is on, the body carries a current code or a recovery code (`code`): 400 without it or with a wrong one.',
    params: PasskeyParamsSchema,
    body: RemovePasskeyRequestSchema,
    success: { 200: MessageSchema },
    errors: [400, 404, 409, 429],
  }),
  deleteAccount: defineEndpoint(routes.deleteAccount, {
    tag: 'Profile',
    summary:
      'Deletes the account: every session ends, identities, codes and pending mail go, the email and personal fields are erased; purchases stay for accounting, tied to no one.',
    description:
      'Needs the current password, or for an account without one a sign-in within the last 10 minutes (403 otherwise). With an active App Store subscription it answers 409 until `keepsAppStoreSubscription` is true: deleting the account does not cancel it. While two-step sign-in is on, the body carries a current code or a recovery code (`code`): 400 without it or with a wrong one. The Stripe customer is deleted and a confirmation is mailed to the address.',
    body: DeleteAccountRequestSchema,
    success: { 200: MessageSchema },
    // 409: an active App Store subscription not yet acknowledged, or an email change that the
    // previous address can still undo.
    errors: [403, 409, 429],
  }),
  listEmailChangeUndoWindows: defineEndpoint(routes.listEmailChangeUndoWindows, {
    tag: 'Profile',
    summary:
      'The addresses the account moved away from that can still undo the change, and until when.',
    description:
      'Each change of email mails a "This was not me" link to the address it leaves, valid 72 hours. `canCloseHere` says whether this session may close the window early.',
    success: { 200: EmailChangeUndoWindowsSchema },
  }),
  closeEmailChangeUndoWindows: defineEndpoint(routes.closeEmailChangeUndoWindows, {
    tag: 'Profile',
    summary:
      'Closes the undo windows of completed email changes early (the old links stop working).',
    description:
      'Only from a session signed in at least 7 days before the change was asked for (403 otherwise). A change still waiting for its confirmation keeps its link.',
    success: { 200: MessageSchema },
    errors: [403],
  }),

  listPlans: defineEndpoint(routes.listPlans, {
    tag: 'Payments',
    summary: 'The premium plans on sale, shortest first; prices in US dollars.',
    success: { 200: PlansResponseSchema },
  }),
  startCheckout: defineEndpoint(routes.startCheckout, {
    tag: 'Payments',
    summary: "A Stripe Checkout page for a plan; no account needed (the email is the buyer's).",
    description:
      "At most CHECKOUTS_PER_ADDRESS_PER_HOUR (20) per client address, and CHECKOUTS_PER_EMAIL_PER_HOUR (30) per email, per hour: beyond, 429 with Retry-After. The member signed in to that email's account (the bearer token is optional here) has a per-email budget of his own, which checkouts by anyone else do not spend. " +
      STRIPE_FAILURES,
    body: StartCheckoutRequestSchema,
    success: { 200: StartCheckoutResponseSchema },
    errors: [409, 429, 502, 503],
  }),
  describeCheckout: defineEndpoint(routes.describeCheckout, {
    tag: 'Payments',
    summary: 'What a finished checkout bought (no personal data).',
    description:
      'At most CHECKOUT_LOOKUPS_PER_ADDRESS_PER_HOUR (100) per client address and hour: beyond, 429 with Retry-After. ' +
      STRIPE_FAILURES,
    params: CheckoutSessionParamsSchema,
    success: { 200: CheckoutSessionSchema },
    errors: [404, 429, 502, 503],
  }),
  openCustomerPortal: defineEndpoint(routes.openCustomerPortal, {
    tag: 'Payments',
    summary: "A link to Stripe's customer portal for the member.",
    description: STRIPE_FAILURES,
    success: { 200: CustomerPortalResponseSchema },
    errors: [502, 503],
  }),
  receiveStripeEvent: defineEndpoint(routes.receiveStripeEvent, {
    tag: 'Payments',
    summary: "Stripe's webhook: a Stripe event, signed in the Stripe-Signature header.",
    description:
      'The body is the raw Stripe event JSON; it is verified against STRIPE_WEBHOOK_SECRET before anything is read, and a signature older than five minutes is refused. An event that could not be handled answers a 5xx (502 or 503 when a call to Stripe failed), and Stripe delivers it again later.',
    signedBody: {
      schema: StripeEventSchema,
      signatureHeader: 'Stripe-Signature',
      description: `Stripe's signature of the exact body, \`t=<unix time>,v1=<HMAC-SHA256 hex>\` (https://docs.stripe.com/webhooks#verify-events). The events acted on: ${HANDLED_STRIPE_EVENT_TYPES.join(', ')}; any other is acknowledged.`,
    },
    success: { 200: StripeEventReceivedSchema },
    errors: [400, 502, 503],
  }),
  receiveAppStoreNotification: defineEndpoint(routes.receiveAppStoreNotification, {
    tag: 'Payments',
    summary: 'App Store Server Notifications V2 (both environments).',
    description:
      "Verified with Apple's library against the configured roots, bundle id, environment and (Production) APPLE_APP_APPLE_ID; 200 only once the change is committed, and for a notification already received. 404 when App Store support is off.",
    body: AppStoreNotificationRequestSchema,
    success: { 200: AppStoreNotificationReceivedSchema },
    errors: [400, 404],
  }),
  recordAppStoreTransaction: defineEndpoint(routes.recordAppStoreTransaction, {
    tag: 'Payments',
    summary: "The iOS app's StoreKit 2 transaction, right after a purchase or restore.",
    description:
      "Binds the subscription (its original transaction) to the member, unless its appAccountToken or an earlier binding names another account (403). Answers the member's premium end.",
    body: AppStoreTransactionRequestSchema,
    success: { 200: AppStoreTransactionResponseSchema },
    errors: [400, 403, 404],
  }),
  claimAppStorePurchase: defineEndpoint(routes.claimAppStorePurchase, {
    tag: 'Payments',
    summary: "Claims an iPhone purchase by the order id of Apple's receipt email.",
    description:
      "The order is looked up with the App Store Server API (Look Up Order ID) and its signed transactions verified; the subscription is bound to the member when it is bound to nobody or to him, and its kept notifications apply. Answers the member's premium end. 404 for an order Apple does not know, or when App Store purchases or order lookups are off; 409 when the subscription belongs to another account (or its appAccountToken names one); at most 10 tries per member and hour (429 with Retry-After beyond); 502 when the App Store cannot be reached.",
    body: AppStoreClaimRequestSchema,
    success: { 200: AppStoreTransactionResponseSchema },
    errors: [404, 409, 429, 502],
  }),
  // The support desk (ADR 020). Every /ops call: 401 without a session, 403 for a member who is
  // not an operator, and 403 for an operator who has not proved a second factor within 12 hours.
  operatorStatus: defineEndpoint(routes.operatorStatus, {
    tag: 'Support desk',
    summary: "The caller's role on the support desk and whether his session may use it now.",
    success: { 200: OperatorStatusSchema },
  }),
  stepUp: defineEndpoint(routes.stepUp, {
    tag: 'Support desk',
    summary: 'Proves a second factor (a current code or a recovery code) in the current session.',
    description:
      'For a member with two-step sign-in on: the session counts as having proved a second factor now (the support desk asks for one within 12 hours). A passkey sign-in counts as well. 400 for a wrong code, 409 when two-step sign-in is off.',
    body: StepUpRequestSchema,
    success: { 200: StepUpResponseSchema },
    errors: [409, 429],
  }),
  searchMembers: defineEndpoint(routes.searchMembers, {
    tag: 'Support desk',
    summary:
      'Finds members by email (its start, any case), account id, Stripe customer, Checkout Session or PaymentIntent id, App Store original transaction id or Apple order id.',
    query: MemberSearchQuerySchema,
    success: { 200: MemberSearchResponseSchema },
    errors: [403, 502],
  }),
  getMember: defineEndpoint(routes.getMember, {
    tag: 'Support desk',
    summary: "A member's profile, premium, subscriptions and purchases (audited as a view).",
    params: OpsIdParamsSchema,
    success: { 200: MemberStorySchema },
    errors: [403, 404],
  }),
  getMemberTimeline: defineEndpoint(routes.getMemberTimeline, {
    tag: 'Support desk',
    summary: 'Everything the product knows of a member, newest first, a page at a time.',
    params: OpsIdParamsSchema,
    query: TimelineQuerySchema,
    success: { 200: TimelineResponseSchema },
    errors: [403, 404],
  }),
  viewAsMember: defineEndpoint(routes.viewAsMember, {
    tag: 'Support desk',
    summary: "What the member's dashboard and Purchase History show him (read only, audited).",
    params: OpsIdParamsSchema,
    success: { 200: MemberViewSchema },
    errors: [403, 404],
  }),
  grantDays: defineEndpoint(routes.grantDays, {
    tag: 'Support desk',
    summary: 'Grants premium days with a reason the member reads in his Purchase History.',
    description: `Through the premium ledger, after the member's current end. \`support\` grants up to ${SUPPORT_MAX_GRANT_DAYS} days per action (403 beyond), \`admin\` more. The same idempotencyKey again answers the same grant (201) and grants nothing more; with other days or reason, 409. The member is mailed.`,
    params: OpsIdParamsSchema,
    body: GrantDaysRequestSchema,
    success: { 201: GrantSchema },
    errors: [403, 404, 409],
  }),
  removeGrant: defineEndpoint(routes.removeGrant, {
    tag: 'Support desk',
    summary: 'Removes a grant of the support team (admin only); its days go through the ledger.',
    params: OpsIdParamsSchema,
    body: ReasonRequestSchema,
    success: { 200: PremiumEndSchema },
    errors: [403, 404, 409],
  }),
  refundPurchase: defineEndpoint(routes.refundPurchase, {
    tag: 'Support desk',
    summary: 'Refunds a Stripe purchase, whole or in part, through Stripe (admin only).',
    description:
      "Without amountCents, all that is left to refund. The ledger takes the purchase's days out when Stripe's event arrives, as for a refund made in Stripe's dashboard. App Store purchases are refunded by Apple only (409). The member is mailed.",
    params: OpsIdParamsSchema,
    body: RefundRequestSchema,
    success: { 200: RefundSchema },
    errors: [403, 404, 409, 502],
  }),
  revokeMemberSessions: defineEndpoint(routes.revokeMemberSessions, {
    tag: 'Support desk',
    summary: 'Signs the member out everywhere (every session ends); he is mailed.',
    params: OpsIdParamsSchema,
    body: ReasonRequestSchema,
    success: { 200: EndedSessionsSchema },
    errors: [403, 404],
  }),
  resendMemberMail: defineEndpoint(routes.resendMemberMail, {
    tag: 'Support desk',
    summary: "Sends the member's verification mail or a password reset mail again.",
    params: OpsIdParamsSchema,
    body: ResendMailRequestSchema,
    success: { 200: MessageSchema },
    errors: [403, 404, 409],
  }),
  addMemberNote: defineEndpoint(routes.addMemberNote, {
    tag: 'Support desk',
    summary: "Adds a note to the member's story (kept in the audit trail, never edited).",
    params: OpsIdParamsSchema,
    body: NoteRequestSchema,
    success: { 201: NoteSchema },
    errors: [403, 404],
  }),
  listAudit: defineEndpoint(routes.listAudit, {
    tag: 'Support desk',
    summary: 'The audit trail, newest first, filtered by operator, member, action and time.',
    query: AuditQuerySchema,
    success: { 200: AuditResponseSchema },
    errors: [403],
  }),
} satisfies Record<ApiRouteName, Endpoint>);

export type Endpoints = typeof endpoints;
export type EndpointName = keyof Endpoints;
