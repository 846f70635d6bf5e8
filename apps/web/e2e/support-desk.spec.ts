import type { APIRequestContext, Browser, Page } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';

import {
  activeUntil,
  payWithCard,
  startCheckout,
  SUCCEEDS,
  waitForNewEndDate,
} from './support/checkout';
import {
  createUser,
  dismissToasts,
  expect,
  expectNoSeriousA11yViolations,
  signIn,
  test,
  toast,
  uniqueEmail,
  watchContentSecurityPolicy,
  watchHydration,
} from './support/fixtures';
import { type OwnServer, ownServer } from './support/own-server';

/**
 * The support desk, end to end. Roles are granted only with the command on the server, and the
 * embedded database serves one process: so this journey runs a server of its own, registers the
 * accounts, stops it, grants the roles with `operator-command.js` (the build of `npm run
 * operator`), and starts it again. A support agent finds a member by the Apple order id of his App
 * Store subscription and grants him 7 days; the member sees them; the audit trail shows the grant
 * once; an admin refunds the member's Stripe year from the desk and its days go when Stripe's event
 * arrives.
 */
const PASSWORD = 'correct horse battery';
const DAY_MS = 24 * 60 * 60 * 1000;
let server: OwnServer;

test.use({ timezoneId: 'UTC' });

/** What the operator's authenticator app shows for his key, `stepsAhead` 30-second steps on. */
function appCode(secret: string, stepsAhead = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: Date.now() + stepsAhead * 30_000,
  });
}

/** Registers an account and turns two-step sign-in on through the API; returns its key. */
async function registerWithTwoStep(request: APIRequestContext, email: string): Promise<string> {
  await createUser(request, email, PASSWORD);
  const signedIn = await request.post('/api/auth/local/login/email', {
    data: { email, password: PASSWORD },
  });
  expect(signedIn.status()).toBe(200);
  const { accessToken } = (await signedIn.json()) as { accessToken: string };
  const headers = { authorization: `Bearer ${accessToken}` };
  const setup = await request.post('/api/auth/mfa/totp/setup', { headers, data: {} });
  expect(setup.status(), await setup.text()).toBe(200);
  const { secret } = (await setup.json()) as { secret: string };
  const confirmed = await request.post('/api/auth/mfa/totp/confirm', {
    headers,
    data: { code: appCode(secret) },
  });
  expect(confirmed.status(), await confirmed.text()).toBe(200);
  return secret;
}

/** A browser context of its own on this journey's server, watched as the fixtures watch theirs. */
async function openPage(browser: Browser) {
  const context = await browser.newContext({
    baseURL: server.url,
    viewport: { width: 1440, height: 900 },
    timezoneId: 'UTC',
  });
  const violations = await watchContentSecurityPolicy(context);
  const mismatches = watchHydration(context);
  const page = await context.newPage();
  return {
    page,
    close: async () => {
      await context.close();
      expect(violations, 'Content-Security-Policy violations').toEqual([]);
      expect(mismatches, 'hydration mismatches').toEqual([]);
    },
  };
}

/** An operator signs in with his password and the app's code, and lands on the desk. */
async function signInToDesk(page: Page, email: string, secret: string): Promise<void> {
  await page.goto('/auth/login?r=%2Fops');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Two-step sign-in' })).toBeVisible();
  // The step after the one that confirmed the setup: each step's code is taken once.
  await page.getByRole('textbox', { name: 'Code', exact: true }).fill(appCode(secret, 1));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/ops$/);
  await expect(page.getByRole('heading', { name: 'Find a member' })).toBeVisible();
}

async function shot(page: Page, name: string, width: number): Promise<void> {
  await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
  await page.waitForTimeout(150);
  // Beside the journey's other results (test-results/e2e/…), and attached to its report.
  const path = test.info().outputPath(`${name}-${width}.png`);
  const body = await page.screenshot({ path, fullPage: true });
  await test.info().attach(`${name}-${width}`, { body, contentType: 'image/png' });
  await page.setViewportSize({ width: 1440, height: 900 });
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  // Beside the journeys' shared server, on the next port.
  const sharedPort = Number(new URL(String(test.info().project.use.baseURL)).port);
  server = ownServer(sharedPort + 1);
  await server.start();
});

test.afterAll(async () => {
  await server.stop();
});

test('support finds a member by his Apple order id and grants 7 days; an admin refunds his Stripe year', async ({
  browser,
  playwright,
}) => {
  test.setTimeout(300_000);
  const request = await playwright.request.newContext({ baseURL: server.url });
  const agentEmail = uniqueEmail('agent');
  const adminEmail = uniqueEmail('admin');
  const memberEmail = uniqueEmail('member');
  const agentSecret = await registerWithTwoStep(request, agentEmail);
  const adminSecret = await registerWithTwoStep(request, adminEmail);
  await createUser(request, memberEmail, PASSWORD);

  // Roles only from the command line, with the server stopped (PGlite serves one process).
  await server.stop();
  const agentGrant = server.runCommand('operator-command', [
    'grant',
    agentEmail,
    '--role',
    'support',
  ]);
  expect(agentGrant.status, agentGrant.output).toBe(0);
  expect(agentGrant.output).toContain(`${agentEmail} is now support`);
  const adminGrant = server.runCommand('operator-command', [
    'grant',
    adminEmail,
    '--role',
    'admin',
  ]);
  expect(adminGrant.status, adminGrant.output).toBe(0);
  await server.start();

  // The member subscribes in the iPhone app, then buys a year on the web: web passes and App Store
  // periods run side by side, and the year, ending later, is what his premium end comes from.
  const member = await openPage(browser);
  await signIn(member.page, memberEmail, PASSWORD);
  const appStore = await member.page.context().newPage();
  await appStore.goto('/dev/app-store');
  await appStore.getByLabel('Member email').fill(memberEmail);
  await appStore.getByLabel('Product').selectOption('premium.month');
  await appStore.getByRole('button', { name: 'Subscribe' }).click();
  const subscription = appStore.getByRole('row').filter({ hasText: memberEmail });
  await expect(subscription).toContainText('1 Month');
  // The order id Apple's receipt email shows him.
  const orderId = (await subscription.getByRole('cell').nth(5).textContent())?.trim() ?? '';
  expect(orderId).toMatch(/^[A-Z0-9]{10,12}$/);
  await appStore.close();
  const afterApple = await waitForNewEndDate(member.page, request, null);

  const checkout = await startCheckout(member.page, '1 Year');
  await payWithCard(checkout, SUCCEEDS);
  await checkout.waitForURL(/\/purchase\/complete/);
  await checkout.close();
  const afterYear = await waitForNewEndDate(member.page, request, afterApple);
  expect(new Date(afterYear).getTime()).toBeGreaterThan(new Date(afterApple).getTime());

  // Support finds him by the order id and opens his story.
  const agent = await openPage(browser);
  await signInToDesk(agent.page, agentEmail, agentSecret);
  await expect(agent.page.getByRole('banner')).toContainText(agentEmail);
  await agent.page
    .getByLabel('Email, account id, Stripe id, original transaction id or Apple order id')
    .fill(orderId);
  await agent.page.getByRole('button', { name: 'Search' }).click();
  const results = agent.page.getByRole('table', { name: `Results for “${orderId}”` });
  await expect(results.getByRole('row')).toHaveCount(2);
  await expect(results.getByRole('row').nth(1)).toContainText('order id');
  await dismissToasts(agent.page);
  await expectNoSeriousA11yViolations(agent.page);
  await shot(agent.page, 'ops-find-member', 1440);
  await results.getByRole('link', { name: memberEmail }).click();
  await expect(agent.page.getByRole('heading', { level: 1, name: memberEmail })).toBeVisible();
  const purchases = agent.page.getByRole('table', { name: 'Purchases' });
  // The header, the year, the App Store month and the note under it on refunds by Apple.
  await expect(purchases.getByRole('row')).toHaveCount(4);
  // Support has no admin control.
  await expect(purchases.getByRole('button', { name: 'Refund' })).toHaveCount(0);

  // 7 days, with a reason the member reads.
  await agent.page.getByRole('button', { name: 'Grant days' }).click();
  const grantForm = agent.page.getByRole('form', { name: 'Grant days' });
  await grantForm.getByLabel('Days').fill('7');
  await grantForm.getByLabel('Reason').fill('service outage');
  await grantForm.getByRole('button', { name: 'Grant days' }).click();
  await expect(toast(agent.page, 'Days granted')).toBeVisible();
  await expect(purchases.getByRole('row')).toHaveCount(5);
  await expect(purchases).toContainText('service outage');
  await dismissToasts(agent.page);
  await expectNoSeriousA11yViolations(agent.page);
  await shot(agent.page, 'ops-member', 1440);

  const afterGrant = await waitForNewEndDate(member.page, request, afterYear);
  expect(new Date(afterGrant).getTime() - new Date(afterYear).getTime()).toBe(7 * DAY_MS);
  await member.page.goto('/dashboard');
  await expect(member.page.getByText(activeUntil(afterGrant))).toBeVisible();
  await member.page.getByRole('link', { name: 'Purchase History' }).click();
  await expect(
    member.page.getByRole('table', { name: 'Purchases' }).getByRole('row').nth(1),
  ).toContainText(/7 days.*service outage/);
  await shot(member.page, 'member-history-with-grant', 375);

  // The audit trail: one row for the grant.
  await agent.page.getByRole('link', { name: 'Audit trail' }).click();
  await agent.page.getByLabel('Member').fill(memberEmail);
  await agent.page.getByLabel('Action').selectOption('grant.add');
  await agent.page.getByRole('button', { name: 'Filter' }).click();
  const rows = agent.page.getByRole('table', { name: 'Rows' });
  await expect(rows).toContainText('service outage');
  await expect(rows.getByRole('row')).toHaveCount(2);
  await expect(rows.getByRole('row').nth(1)).toContainText(agentEmail);
  await expectNoSeriousA11yViolations(agent.page);
  await shot(agent.page, 'ops-audit', 1440);

  // View as the member, on a phone.
  await agent.page.goto('/ops');
  await agent.page
    .getByLabel('Email, account id, Stripe id, original transaction id or Apple order id')
    .fill(memberEmail);
  await agent.page.getByRole('button', { name: 'Search' }).click();
  await agent.page.getByRole('link', { name: memberEmail }).click();
  await agent.page.getByRole('link', { name: 'View as member' }).click();
  await expect(agent.page.getByRole('note')).toContainText(`Viewing as ${memberEmail} — read only`);
  await expect(agent.page.getByText(activeUntil(afterGrant))).toBeVisible();
  await expectNoSeriousA11yViolations(agent.page);
  await shot(agent.page, 'ops-view-as', 375);
  await agent.close();

  // An admin refunds the year from the desk: its days go when Stripe's event arrives, and his
  // premium ends with the App Store month again (the 7 days now run from the day they were
  // granted, inside it).
  const admin = await openPage(browser);
  await signInToDesk(admin.page, adminEmail, adminSecret);
  await admin.page
    .getByLabel('Email, account id, Stripe id, original transaction id or Apple order id')
    .fill(memberEmail);
  await admin.page.getByRole('button', { name: 'Search' }).click();
  await admin.page.getByRole('link', { name: memberEmail }).click();
  const stripeRow = admin.page
    .getByRole('table', { name: 'Purchases' })
    .getByRole('row')
    .filter({ hasText: 'Stripe' });
  await stripeRow.getByRole('button', { name: 'Refund' }).click();
  const refundForm = admin.page.getByRole('form', { name: /^Refund / });
  await refundForm.getByLabel('Reason').fill('bought by mistake');
  await refundForm.getByRole('button', { name: 'Refund' }).click();
  await refundForm.getByRole('button', { name: 'Yes, refund' }).click();
  await expect(toast(admin.page, 'Refund sent to Stripe')).toBeVisible();

  const afterRefund = await waitForNewEndDate(member.page, request, afterGrant);
  expect(afterRefund).toBe(afterApple);
  await admin.page.reload();
  await expect(admin.page.getByRole('table', { name: 'Purchases' })).toContainText(/Revoked/);
  await admin.close();
  await member.close();
  await request.dispose();
});
