// The checks every account journey shares: a password checked against its failure budgets, the
// networks an account signs in from, the attempts a client address may make, and whether an
// address is free (docs/security.md).

import { AppError } from '../../errors';
import type { Caller } from '../../security/client-address';
import { type PasswordCheck } from '../../security/password-hasher';
import type { FailureGateRule, GateOutcome, RateLimitRule } from '../../security/rate-limiter';
import { usersRepo } from '../users';
import { recordSignInFailure } from './sign-in-history';
import * as undoRepo from './undo-repo';
import {
  type AuthServiceDependencies,
  GATE_QUEUE_MS,
  type KnownAccount,
  messages,
  passwordFailureGate,
  accountFailuresRule,
  rateLimitRules,
  type SignInCheck,
} from './rules';

export type CredentialChecks = ReturnType<typeof createCredentialChecks>;

/** What the checks use of the auth service's dependencies. */
type ChecksContext = Pick<
  AuthServiceDependencies,
  'db' | 'hasher' | 'rateLimiter' | 'attemptsPerAddress' | 'log' | 'secondStep'
>;

export function createCredentialChecks(deps: AuthServiceDependencies) {
  return {
    attemptKey,
    isKnownAddress: (account: KnownAccount | undefined, caller: Caller) =>
      isKnownAddress(deps, account, caller),
    rememberSignInAddress: (account: KnownAccount, caller: Caller) =>
      rememberSignInAddress(deps, account, caller),
    spendAttempt: (caller: Caller) => spendAttempt(deps, caller),
    checkPassword: (
      account: CheckedAccount,
      password: string,
      caller: Caller,
      tooMany: string,
      options: PasswordCheckOptions = {},
    ) => checkPassword(deps, account, password, caller, tooMany, options),
    checkUnderFailureGates: (
      account: KnownAccount & { email: string },
      caller: Caller,
      isRight: () => Promise<boolean>,
    ) => checkUnderFailureGates(deps, account, caller, isRight),
    confirmCurrentPassword: (user: CurrentUser, password: string, caller: Caller) =>
      confirmCurrentPassword(deps, user, password, caller),
    mayMailReset: (account: KnownAccount, caller: Caller) => mayMailReset(deps, account, caller),
    isAddressTaken: (email: string) => isAddressTaken(deps, email),
  };
}

/**
 * Wrong passwords per client address, for accounts that never signed in from there: as many
 * as the address's other attempts, but counted apart, so a stranger's guesses never use up the
 * registrations and reset requests of others behind his address.
 */
function wrongPasswordsPerAddress(deps: ChecksContext): RateLimitRule {
  return { ...deps.attemptsPerAddress, name: 'wrong-passwords-address' };
}

function attemptKey(accountKey: string, caller: Caller) {
  return `${accountKey}|${caller.clientAddress}`;
}

/**
 * A network is the owner's for the account's current credentials: a reset, a password change or
 * the undo of an email change starts afresh, so the networks of whoever signed in before (an
 * attacker the owner just put out) stop counting as the owner's.
 */
function knownAddressKey(account: KnownAccount, caller: Caller) {
  return attemptKey(`${account.id}|v${account.credentialVersion}`, caller);
}

/** Whether the account signed in from the caller's network lately, with its credentials now. */
async function isKnownAddress(
  deps: ChecksContext,
  account: KnownAccount | undefined,
  caller: Caller,
): Promise<boolean> {
  if (!account) return false;
  const seen = await deps.rateLimiter.peek(
    rateLimitRules.knownAddresses,
    knownAddressKey(account, caller),
  );
  return seen.count > 0;
}

/** Remembers the caller's network as one the account signs in from (for 30 days). */
async function rememberSignInAddress(
  deps: ChecksContext,
  account: KnownAccount,
  caller: Caller,
): Promise<void> {
  // A window that starts now: an address stays known for 30 days after its latest sign-in.
  await deps.rateLimiter.mark(rateLimitRules.knownAddresses, knownAddressKey(account, caller));
}

/** Counts one registration or reset request against the caller's address, or refuses. */
async function spendAttempt(deps: ChecksContext, caller: Caller): Promise<void> {
  const spent = await deps.rateLimiter.hit(deps.attemptsPerAddress, caller.clientAddress);
  if (!spent.isAllowed) {
    throw new AppError(429, messages.tooManyFromNetwork, spent.retryAfterSeconds);
  }
}

/** Waits its turn in a failure gate, or refuses: 429 while failures hold it shut. */
async function enterGate(
  deps: ChecksContext,
  gate: FailureGateRule,
  key: string,
  tooMany: string,
): Promise<string> {
  const giveUpAt = Date.now() + GATE_QUEUE_MS;
  for (;;) {
    const answer = await deps.rateLimiter.enterGate(gate, key);
    if (answer.kind === 'allowed') return answer.ticket;
    if (answer.kind === 'wait') throw new AppError(429, tooMany, answer.retryAfterSeconds);
    // Still busy after seconds: congestion, not guessing (the wait was for other checks).
    if (Date.now() >= giveUpAt) throw new AppError(503, messages.busy, 1);
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
  }
}

/**
 * Enters the failure gate of the account and the caller's address, asking meanwhile whether the
 * address is one the account signs in from: the two go to Redis in one round trip (its client
 * pipelines what is sent in one turn of the event loop). The answer is for the caller to await
 * inside the gate, whose leaving a `finally` makes sure of.
 */
async function enterGateAskingIfKnown(
  deps: ChecksContext,
  account: KnownAccount | undefined,
  caller: Caller,
  addressKey: string,
  tooMany: string,
): Promise<{ ticket: string; isKnown: Promise<boolean> }> {
  const isKnown = isKnownAddress(deps, account, caller);
  // Awaited by the caller once inside; a gate that refuses leaves it unawaited, not unhandled.
  isKnown.catch(() => {});
  const ticket = await enterGate(deps, passwordFailureGate, addressKey, tooMany);
  return { ticket, isKnown };
}

/** The account a password is checked for: its key (the email as typed), and its user if any. */
interface CheckedAccount {
  key: string;
  user: { id: string; passwordHash: string | null; credentialVersion: number } | undefined;
}

interface PasswordCheckOptions {
  /**
   * Two-step sign-in is on: a right password is only the first step. It then neither clears the
   * address's failures (wrong codes among them: knowing the password must not buy endless
   * guesses at the code) nor marks the network as the owner's; the finished sign-in does.
   */
  secondStepFollows?: boolean;
}

/**
 * Every password check of the product goes through here: sign-in, change password, change
 * email. Only failures count. Per account and client address (passwordFailureGate), they hold
 * further checks from there back, whatever the password: that address is the one guessing.
 * Per account from addresses it never signed in from (accountFailuresRule) and per address
 * across such accounts (credential stuffing tries one leaked password on each of many
 * accounts), they only slow wrong guesses: the password is checked, a right one signs in, a
 * wrong one past the budget is answered 429. So a stranger's failures never keep out the
 * members who share his address (an office, a carrier's NAT), nor an owner on a new network
 * while others guess at his account elsewhere. A success marks the address as the owner's.
 * An unknown account is checked against a decoy hash, so it costs and counts like a real one.
 */
async function checkPassword(
  deps: ChecksContext,
  account: CheckedAccount,
  password: string,
  caller: Caller,
  tooMany: string,
  { secondStepFollows = false }: PasswordCheckOptions = {},
): Promise<SignInCheck> {
  const { hasher, rateLimiter } = deps;
  const { user } = account;
  const addressKey = attemptKey(account.key, caller);
  const gate = await enterGateAskingIfKnown(deps, user, caller, addressKey, tooMany);
  let outcome: GateOutcome = 'abandoned';
  let isKnown = false;
  let check: PasswordCheck = { isValid: false, needsRehash: false };
  try {
    isKnown = await gate.isKnown;
    check = user?.passwordHash
      ? await hasher.verify(user.passwordHash, password)
      : { isValid: await hasher.verifyAgainstNothing(password), needsRehash: false };
    if (!check.isValid) outcome = 'failure';
    else if (!secondStepFollows) outcome = 'success';
  } finally {
    // A success marks the network as the owner's as the gate is left: one round trip for both.
    await Promise.all([
      rateLimiter.leaveGate(passwordFailureGate, addressKey, gate.ticket, outcome),
      outcome === 'success' && user ? rememberSignInAddress(deps, user, caller) : undefined,
    ]);
  }
  if (!user || !check.isValid) {
    // The owner sees it in his sign-in history (ADR 019); an unknown email has no owner to tell.
    if (user && outcome === 'failure') {
      await recordSignInFailure(deps.db, { userId: user.id, method: 'password', caller }, deps.log);
    }
    // The owner's typos on his own networks neither count nor are slowed.
    if (outcome === 'failure' && !isKnown) {
      await slowWrongGuesses(deps, account.key, caller, tooMany);
    }
    return 'invalid';
  }
  if (check.needsRehash && user.passwordHash) {
    const oldHash = user.passwordHash;
    // Best effort, and only over the very hash checked: never over a password set meanwhile.
    // A busy hasher must not turn a right password into an error; the next sign-in retries.
    await hasher
      .hash(password)
      .then((newHash) =>
        usersRepo.updatePasswordHash(deps.db, user.id, newHash, { replacing: oldHash }),
      )
      .catch(() => {});
  }
  return 'valid';
}

/**
 * A code of two-step sign-in, checked as a password is (ADR 018): in the same failure gate of
 * the account and client address, so wrong codes and wrong passwords share one budget, and
 * slowed past the same budgets from addresses the account never signed in from. `isRight` runs
 * the check itself (and takes the code, once).
 */
async function checkUnderFailureGates(
  deps: ChecksContext,
  account: KnownAccount & { email: string },
  caller: Caller,
  isRight: () => Promise<boolean>,
): Promise<boolean> {
  const key = account.email.toLowerCase();
  const addressKey = attemptKey(key, caller);
  const gate = await enterGateAskingIfKnown(
    deps,
    account,
    caller,
    addressKey,
    messages.tooManyAttempts,
  );
  let outcome: GateOutcome = 'abandoned';
  let isKnown = false;
  try {
    isKnown = await gate.isKnown;
    if (!isKnown) await spendAccountBudgetOnCode(deps, key);
    outcome = (await isRight()) ? 'success' : 'failure';
  } finally {
    await deps.rateLimiter.leaveGate(passwordFailureGate, addressKey, gate.ticket, outcome);
  }
  if (outcome === 'failure' && !isKnown) {
    await slowWrongGuesses(deps, key, caller, messages.tooManyAttempts, { accountCounted: true });
  }
  return outcome === 'success';
}

/**
 * Past the account's failure budget, a code from an address the account never signed in from is
 * not even checked (429 until the window passes), where a password still is (ADR 011): six
 * digits fall to a spray over enough networks, one guess each past the budget, while a password
 * does not (ADR 018). The code is counted before it is checked, atomically, so guesses sent at
 * once from many networks cannot all be checked on a budget that has one failure left; a right
 * code so counts too, which costs the owner one of fifty.
 */
async function spendAccountBudgetOnCode(deps: ChecksContext, accountKey: string) {
  const spent = await deps.rateLimiter.hit(accountFailuresRule, accountKey);
  if (!spent.isAllowed) {
    throw new AppError(429, messages.tooManyAttempts, spent.retryAfterSeconds);
  }
}

/**
 * Counts a wrong password from an address the account never signed in from, for the account
 * (unless it was counted before the check, as a code is) and for the address; past either
 * budget the answer is 429 instead of 401. Counted atomically, so guesses in parallel cannot
 * pass a budget unslowed.
 */
async function slowWrongGuesses(
  deps: ChecksContext,
  accountKey: string,
  caller: Caller,
  tooMany: string,
  { accountCounted = false }: { accountCounted?: boolean } = {},
) {
  const [forAccount, fromAddress] = await Promise.all([
    accountCounted
      ? deps.rateLimiter.peek(accountFailuresRule, accountKey)
      : deps.rateLimiter.hit(accountFailuresRule, accountKey),
    deps.rateLimiter.hit(wrongPasswordsPerAddress(deps), caller.clientAddress),
  ]);
  if (!forAccount.isAllowed || !fromAddress.isAllowed) {
    const retryAfter = Math.max(
      forAccount.isAllowed ? 0 : forAccount.retryAfterSeconds,
      fromAddress.isAllowed ? 0 : fromAddress.retryAfterSeconds,
    );
    throw new AppError(429, tooMany, retryAfter);
  }
}

type CurrentUser = {
  id: string;
  email: string;
  passwordHash: string | null;
  credentialVersion: number;
};

/**
 * A signed-in member's own password, asked again before a change to his account. With two-step
 * sign-in on, a code follows it, so a right password is only the first step, as at sign-in: it
 * must not clear the failures the wrong codes before it left, or a session and the password buy
 * endless guesses at the code.
 */
async function confirmCurrentPassword(
  deps: ChecksContext,
  user: CurrentUser,
  password: string,
  caller: Caller,
): Promise<void> {
  const account = { key: user.email.toLowerCase(), user };
  const secondStepFollows = await deps.secondStep.isOn(user.id);
  const check = await checkPassword(
    deps,
    account,
    password,
    caller,
    messages.tooManyWrongPasswords,
    { secondStepFollows },
  );
  if (check !== 'valid') throw new AppError(400, messages.wrongCurrentPassword);
}

/** Whether one more reset mail for this account may go, asked for from this address. */
async function mayMailReset(
  deps: ChecksContext,
  account: KnownAccount,
  caller: Caller,
): Promise<boolean> {
  const { rateLimiter } = deps;
  const userId = account.id;
  const fromHere = await rateLimiter.hit(
    rateLimitRules.resetMailsPerAccountAndAddress,
    attemptKey(userId, caller),
  );
  if (!fromHere.isAllowed) return false;
  const fromAddress = await rateLimiter.hit(
    rateLimitRules.resetMailsPerAddress,
    caller.clientAddress,
  );
  if (!fromAddress.isAllowed) return false;
  // Strangers together cannot use up the mails the owner asks for from his own network.
  if (await isKnownAddress(deps, account, caller)) return true;
  return (await rateLimiter.hit(rateLimitRules.resetMailsPerAccount, userId)).isAllowed;
}

/** An address nobody else may take: in use, or held for an account's undo of a change. */
async function isAddressTaken(deps: ChecksContext, email: string): Promise<boolean> {
  return (
    (await usersRepo.findUserByEmail(deps.db, email)) !== undefined ||
    (await undoRepo.isAddressHeldForUndo(deps.db, email))
  );
}
