import type { Page } from '@playwright/test';
import type { TokenPair } from '@kegel/contract';
import { Secret, TOTP } from 'otpauth';

import {
  createUser,
  expect,
  expectNoSeriousA11yViolations,
  screenshotBothWidths,
  signIn,
  test,
  toast,
  uniqueEmail,
} from './support/fixtures';

const PASSWORD = 'correct horse battery';

/**
 * Chromium's virtual authenticator (DevTools' WebAuthn domain): a platform authenticator that
 * keeps discoverable credentials and verifies the user, answering the passkey dialogs at once.
 */
async function addVirtualAuthenticator(page: Page): Promise<void> {
  const devtools = await page.context().newCDPSession(page);
  await devtools.send('WebAuthn.enable');
  await devtools.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

/**
 * Makes the next documents of `page` report that passkeys cannot be offered in autofill (as
 * browsers without conditional mediation do), or undoes that.
 */
async function withoutPasskeyAutofill(page: Page, isOff: boolean): Promise<void> {
  await page.evaluate((off) => {
    if (off) sessionStorage.setItem('e2e-passkey-autofill-off', '1');
    else sessionStorage.removeItem('e2e-passkey-autofill-off');
  }, isOff);
}

test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => {
    if (sessionStorage.getItem('e2e-passkey-autofill-off')) {
      Object.defineProperty(PublicKeyCredential, 'isConditionalMediationAvailable', {
        value: () => Promise.resolve(false),
      });
    }
  });
});

test('a member adds a passkey, signs in with it alone, renames it and removes it', async ({
  page,
  request,
}, testInfo) => {
  const email = uniqueEmail('passkeys');
  await createUser(request, email, PASSWORD);
  await addVirtualAuthenticator(page);
  await signIn(page, email, PASSWORD);

  await page.goto('/dashboard/settings');
  const section = page.getByRole('region', { name: 'Passkeys' });
  await expect(section.getByText('You have no passkeys yet.')).toBeVisible();
  await section.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(toast(page, 'Passkey added')).toBeVisible();
  const passkeys = section.getByRole('list', { name: 'Passkeys' });
  await expect(passkeys.getByRole('listitem')).toHaveCount(1);
  await expect(passkeys).toContainText('Chrome on Windows');
  await expect(passkeys).toContainText('Never used');
  await expectNoSeriousA11yViolations(page);

  // Signed out, then back in with the button: no email, no password typed. This browser is made
  // to offer no passkeys in the email field's autofill, or the virtual authenticator would
  // answer that request at once and leave the button nothing to do.
  await withoutPasskeyAutofill(page, true);
  await page.reload();
  await page.getByRole('button', { name: 'Logout' }).click();
  await page.waitForURL(/\/auth\/login/);
  await expect(page.getByLabel('Email')).toHaveAttribute('autocomplete', 'username webauthn');
  await expect(page.getByRole('button', { name: 'Sign in with a passkey' })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await screenshotBothWidths(page, testInfo, 'login-passkey');
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  await page.goto('/dashboard/settings');
  const devices = page.getByRole('list', { name: "Where you're signed in" });
  await expect(devices.getByRole('listitem').filter({ hasText: 'This device' })).toContainText(
    'Passkey · Last active',
  );
  await expect(passkeys).toContainText('Last used');
  await screenshotBothWidths(page, testInfo, 'settings-passkeys');

  // And through the email field's autofill: the sign-in page signs in as soon as the passkey is
  // picked there (the virtual authenticator picks it at once).
  await page.getByRole('button', { name: 'Logout' }).click();
  await page.waitForURL(/\/auth\/login/);
  await withoutPasskeyAutofill(page, false);
  await page.goto('/auth/login');
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(toast(page, 'Successfully authenticated')).toBeVisible();

  await page.goto('/dashboard/settings');
  await passkeys.getByRole('button', { name: 'Rename Chrome on Windows' }).click();
  await section.getByLabel('Passkey name').fill('Work laptop');
  await section.getByRole('button', { name: 'Save' }).click();
  await expect(toast(page, 'Passkey renamed')).toBeVisible();
  await expect(passkeys).toContainText('Work laptop');

  await passkeys.getByRole('button', { name: 'Remove Work laptop' }).click();
  await passkeys.getByRole('button', { name: 'Remove Work laptop now' }).click();
  await expect(toast(page, 'Passkey removed')).toBeVisible();
  await expect(section.getByText('You have no passkeys yet.')).toBeVisible();
});

/** The authenticator app's code for `secret`, a step (30 s) ahead: the server takes it too. */
function nextAppCode(secret: string, at = Date.now() + 30_000): string {
  return new TOTP({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  }).generate({ timestamp: at });
}

test('with two-step sign-in on, adding a passkey asks for a current code first', async ({
  page,
  request,
}, testInfo) => {
  const email = uniqueEmail('passkeys-two-step');
  await createUser(request, email, PASSWORD);
  await addVirtualAuthenticator(page);
  await signIn(page, email, PASSWORD);
  // Two-step sign-in turned on from another session of the member's.
  const login = await request.post('/api/auth/local/login/email', {
    data: { email, password: PASSWORD },
  });
  const headers = { authorization: `Bearer ${((await login.json()) as TokenPair).accessToken}` };
  const setup = await request.post('/api/auth/mfa/totp/setup', { headers, data: {} });
  const { secret } = (await setup.json()) as { secret: string };
  const confirmed = await request.post('/api/auth/mfa/totp/confirm', {
    headers,
    data: { code: nextAppCode(secret, Date.now()) },
  });
  expect(confirmed.status(), await confirmed.text()).toBe(200);

  await page.goto('/dashboard/settings');
  const section = page.getByRole('region', { name: 'Passkeys' });
  await section.getByRole('button', { name: 'Add a passkey' }).click();
  const form = section.getByRole('form', { name: 'Add a passkey' });
  await expect(form.getByLabel('Code from your authenticator app')).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await screenshotBothWidths(page, testInfo, 'settings-passkeys-code');
  await form.getByLabel('Code from your authenticator app').fill(nextAppCode(secret));
  await form.getByRole('button', { name: 'Continue' }).click();
  await expect(toast(page, 'Passkey added')).toBeVisible();
  await expect(section.getByRole('list', { name: 'Passkeys' }).getByRole('listitem')).toHaveCount(
    1,
  );
});
