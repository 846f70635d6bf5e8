// The API's answers that the web app also shows or compares with: written once, here, so the two
// sides cannot drift apart. The spec's texts stay exact.

/** What every call answers when the caller's session is not (or no longer) valid. */
export const SESSION_ENDED_MESSAGE = 'Your session has ended. Please sign in again.';

/** Sign-in, registration, passwords and email changes. */
export const authMessages = {
  sessionNotFound: 'Session not found',
  invalidCredentials: 'Invalid email or password',
  tooManyAttempts: 'Too many failed sign-in attempts. Please try again later.',
  tooManyWrongPasswords: 'Too many wrong passwords. Please try again later.',
  tooManyRegistrations: 'Too many new accounts from your network. Please try again later.',
  tooManyFromNetwork: 'Too many attempts from your network. Please try again later.',
  tooManyRequests: 'Too many requests. Please try again later.',
  emailTaken: 'An account with this email already exists',
  resetRequested:
    'If an account exists for this email, we have sent it a link to choose a new password.',
  resetLinkInvalid: 'Failed to change password. Link is invalid or has expired.',
  sessionEnded: SESSION_ENDED_MESSAGE,
  wrongCurrentPassword: 'Current password is incorrect',
  noPasswordYet:
    'This account signs in with Google or Apple and has no password yet. Use "Forgot your password?" to set one.',
  sameEmail: 'This is already the email of your account',
  emailInUse: 'This email is already in use by another account',
  emailLinkInvalid: 'This link is invalid or has expired. Please, try again.',
  busy: 'The server is busy. Please try again in a moment.',
  /** A "This was not me" link whose code is unknown, used or expired. */
  undoLinkInvalid: 'This link is invalid, was used already or has expired.',
} as const;

/** Google and Apple sign-in. */
export const socialMessages = {
  googleOff: 'Sign in with Google is not available.',
  appleOff: 'Sign in with Apple is not available.',
  googleRefused: 'Google sign-in failed. Please try again.',
  appleRefused: 'Apple sign-in failed. Please try again.',
  unavailable: 'The sign-in service could not be reached. Please try again in a moment.',
  unverifiedEmail:
    'Your provider has not verified this email address, so it cannot be used to sign in here. Verify it with your provider, or sign in with email and password.',
  noEmail:
    'Your provider did not share an email address, so no account could be made. Allow sharing the email and try again.',
  emailTakenForGoogle:
    'An account with this email already exists. Sign in with your email and password instead (use "Forgot your password?" if you have none).',
  changedMeanwhile: 'The account changed while you were signing in. Please try again.',
  addressHeldForUndo:
    'The account that used this email moved to another address recently, and this address can still take it back: use the “This was not me” button in the email we sent here.',
} as const;

/** Two-step sign-in: its code fields, its sign-in step and its settings (ADR 018). */
export const twoStepMessages = {
  codeRequired: 'Enter the 6-digit code from your authenticator app',
  codeMalformed: 'The code is the 6 digits your authenticator app shows',
  recoveryCodeRequired: 'Enter one of your recovery codes',
  /** The answer to a wrong code, and to a right one already used (a replay): the same words. */
  wrongCode: 'This code is not right, or was used already. Wait for the next one and try again.',
  wrongRecoveryCode: 'This recovery code is not right, or was used already.',
  /** A change of credentials asked for without the second step while it is on. */
  secondFactorNeeded:
    'Two-step sign-in is on: enter the code from your authenticator app (or a recovery code).',
  wrongSecondFactor: 'This code is not right, or was used already.',
  alreadyOn: 'Two-step sign-in is already on. Turn it off first to use another app.',
  noSetupWaiting: 'No setup is waiting for a code. Start again with "Turn on".',
  notOn: 'Two-step sign-in is not on.',
  signInExpired: 'This sign-in has expired or was used already. Please sign in again.',
  turnedOff: 'Two-step sign-in is off.',
} as const;

/** Passkeys: what their calls answer when they refuse (shown as they are by the web app). */
export const passkeyMessages = {
  notFound: 'Passkey not found',
  lastWayToSignIn:
    'This passkey is the only way to sign in to your account. Set a password (or add another passkey) before removing it.',
  signInFailed: 'Passkey sign-in failed. Please try again.',
  tooManyFailures: 'Too many failed sign-in attempts. Please try again later.',
  registrationFailed: 'The passkey could not be added. Please try again.',
  alreadyRegistered: 'This passkey is already added to an account.',
} as const;

/** What "This wasn't me" answers, and the page shows. */
export const signInNoticeMessages = {
  linkInvalid: 'This link is invalid, was used already or has expired.',
  secured:
    'Every device was signed out and your password was cleared. We emailed you a link to choose a new one.',
} as const;
