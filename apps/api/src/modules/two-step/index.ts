// The two-step sign-in module's public face: what other modules may use of it. The sign-in
// paths (password, Google, Apple) ask `challengeIfOn` after their first step; changes of
// credentials (password, email, removing a passkey) call `requireSecondFactorIfOn` first.
export { createTwoStepService, type SecondFactor, type TwoStepService } from './service';
export { type SignInMachinery, type TwoStepDependencies } from './rules';
