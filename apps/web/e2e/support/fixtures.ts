import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

import {
  type APIRequestContext,
  type BrowserContext,
  expect,
  type Page,
  test as base,
  type TestInfo,
} from '@playwright/test';

/**
 * Fixtures for journeys against the real server: accounts made through the API, emails read from
 * the server's local SMTP inbox (`/dev/inbox/messages.json`), screenshots and an axe-core scan.
 */
interface InboxMessage {
  id: number;
  to: string[];
  subject: string;
  text: string;
}

let counter = 0;
/**
 * An address no other journey uses, in this run or an earlier one against the same data: the
 * journeys share one server, and run in parallel workers, each with its own counter.
 */
export function uniqueEmail(label = 'member'): string {
  counter += 1;
  return `${label}.${Date.now().toString(36)}${counter}.${randomBytes(3).toString('hex')}@example.com`;
}

export async function createUser(
  request: APIRequestContext,
  email: string,
  password: string,
): Promise<void> {
  const response = await request.post('/api/auth/local/register/email', {
    data: { email, password },
  });
  expect(response.status(), await response.text()).toBe(201);
}

/** The newest email to `to` whose subject contains `subject`, waiting for it to arrive. */
export async function readEmail(
  request: APIRequestContext,
  to: string,
  subject: string,
): Promise<InboxMessage> {
  let found: InboxMessage | undefined;
  await expect
    .poll(
      async () => {
        const messages = (await (
          await request.get('/dev/inbox/messages.json')
        ).json()) as InboxMessage[];
        found = messages
          .reverse()
          .find((message) => message.to.includes(to) && message.subject.includes(subject));
        return Boolean(found);
      },
      { timeout: 15_000 },
    )
    .toBe(true);
  return found!;
}

/** The link of an email, as a path of the server under test (its origin is PUBLIC_URL). */
export function linkIn(message: InboxMessage): string {
  const match = /https?:\/\/\S+/.exec(message.text);
  if (!match) throw new Error(`no link in "${message.subject}"`);
  const url = new URL(match[0]);
  return `${url.pathname}${url.search}`;
}

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/auth/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

/** A toast (react-toastify) with exactly this text. */
export function toast(page: Page, text: string) {
  return page.locator('.Toastify').getByText(text, { exact: true });
}

/**
 * Closes the open toasts, as a person does before reaching what they cover (they sit top-right,
 * over the header). They would close by themselves after 5 s, but not while the page has lost the
 * focus to another tab (the checkout's), as react-toastify pauses them then.
 */
export async function dismissToasts(page: Page): Promise<void> {
  const closeButtons = page.locator('.Toastify').getByRole('button', { name: 'close' });
  while ((await closeButtons.count()) > 0) {
    // A toast may close by itself meanwhile: then there is nothing left to click.
    await closeButtons
      .first()
      .click({ timeout: 2_000 })
      .catch(() => undefined);
  }
  await expect(page.locator('.Toastify__toast')).toHaveCount(0);
}

export interface SignedInProfile {
  id: string;
  email: string;
  subscriptionEndDate: string | null;
  hasPassword: boolean;
}

/** The profile of whoever is signed in on `page`, read from the API with the page's token. */
export async function profileOf(page: Page, request: APIRequestContext): Promise<SignedInProfile> {
  const token = await page.evaluate(() => localStorage.getItem('kegel-coach.accessToken'));
  const response = await request.get('/api/users/profile', {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status()).toBe(200);
  return (await response.json()) as SignedInProfile;
}

/** Replaces the stored access token with one whose `exp` is long past (the refresh one stays). */
export async function expireAccessToken(page: Page): Promise<void> {
  await page.evaluate(() => {
    const part = (value: object): string => btoa(JSON.stringify(value)).replace(/=+$/, '');
    localStorage.setItem(
      'kegel-coach.accessToken',
      `${part({ alg: 'HS256' })}.${part({ exp: 1 })}.x`,
    );
  });
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core on the current page: no serious or critical violation. */
export async function expectNoSeriousA11yViolations(page: Page): Promise<void> {
  // Evaluated through the browser's debugging protocol, not added as a <script>: the site's
  // Content-Security-Policy refuses inline scripts, and the journeys fail on any refusal.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (context: Document) => Promise<{
            violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run(document);
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) =>
          `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      );
  });
  expect(violations).toEqual([]);
}

/** Screenshots of the current page at 1440 and 375 px, attached to the report. */
export async function screenshotBothWidths(
  page: Page,
  testInfo: TestInfo,
  name: string,
): Promise<void> {
  for (const width of [1440, 375]) {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
    await page.waitForTimeout(150);
    const body = await page.screenshot({
      path: testInfo.outputPath(`${name}-${width}.png`),
      fullPage: true,
    });
    await testInfo.attach(`${name}-${width}`, { body, contentType: 'image/png' });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

/**
 * Collects every Content-Security-Policy violation in the pages of `context`, popups and the
 * checkout tab included: the `securitypolicyviolation` event of each document (reported on the
 * console by a script Playwright adds before the page's own) and Chromium's own console lines
 * ("Refused to … because it violates the following Content Security Policy directive").
 */
export async function watchContentSecurityPolicy(context: BrowserContext): Promise<string[]> {
  const violations: string[] = [];
  await context.addInitScript(() => {
    document.addEventListener(
      'securitypolicyviolation',
      (event) => {
        console.error(
          `[csp-violation] ${event.effectiveDirective} blocked ${event.blockedURI || '(inline)'} in ${event.documentURI.split('?')[0]}`,
        );
      },
      { capture: true },
    );
  });
  context.on('console', (message) => {
    const text = message.text();
    if (text.startsWith('[csp-violation]') || text.includes('Content Security Policy')) {
      violations.push(text);
    }
  });
  return violations;
}

/**
 * Collects React's complaints that a prerendered page's HTML is not what the app draws
 * (hydration): React then throws the HTML away and draws the page again, a flash and a lost
 * first paint. It tells on the console, or as an uncaught error.
 */
export function watchHydration(context: BrowserContext): string[] {
  const mismatches: string[] = [];
  // A production build says it by number: React's errors 418, 423 and 425 are the mismatches.
  const isMismatch = (text: string): boolean =>
    /hydrat|didn't match|did not match|react\.dev\/errors\/(418|423|425)\b/i.test(text);
  context.on('console', (message) => {
    if (message.type() === 'error' && isMismatch(message.text())) mismatches.push(message.text());
  });
  context.on('weberror', (error) => {
    if (isMismatch(error.error().message)) mismatches.push(error.error().message);
  });
  return mismatches;
}

/**
 * Every journey fails on a Content-Security-Policy violation in its browser context (a blocked
 * script or style is a feature broken in production, even when the journey's own checks pass),
 * and on a prerendered page the app could not take over as it was. A journey that opens a
 * context of its own watches it with `watchContentSecurityPolicy` and `watchHydration`.
 */
export const test = base.extend({
  context: async ({ context }, use) => {
    const violations = await watchContentSecurityPolicy(context);
    const mismatches = watchHydration(context);
    await use(context);
    expect(violations, 'Content-Security-Policy violations').toEqual([]);
    expect(mismatches, 'hydration mismatches').toEqual([]);
  },
});
export { expect };
