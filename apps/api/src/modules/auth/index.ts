// The auth module's public face: what other modules may use of it.
export { isAddressHeldForUndo } from './undo-repo';
export { type AuthService, createAuthService, findSignedInAccount } from './service';
export { recordSignInFailure, type SignInAttempt } from './sign-in-history';
export { endEverySession } from './sessions';
