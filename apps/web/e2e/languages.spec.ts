// Every word in the member's language (README, Languages): a German browser gets German pages,
// field messages and mail, with no English drawn first; a member's choice in Account Settings
// wins and his next mail follows it; the pseudo-locale finds any text not from a catalog.
import { readFileSync } from 'node:fs';

import type { Page } from '@playwright/test';

import {
  expect,
  linkIn,
  readEmail,
  screenshotBothWidths,
  signIn,
  test,
  uniqueEmail,
} from './support/fixtures';

type Catalog = Record<string, Record<string, string>>;
function catalog(locale: string): Catalog {
  const file = new URL(`../../../packages/contract/catalogs/${locale}.json`, import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8')) as Catalog;
}
const de = catalog('de');
const es = catalog('es');
const en = catalog('en');

/** A catalog's text, which must be there. */
function say(texts: Catalog, namespace: string, key: string): string {
  const text = texts[namespace]?.[key];
  if (text === undefined) throw new Error(`no ${namespace}.${key} in the catalog`);
  return text;
}

/** A catalog text with its `{placeholders}` filled, as the page shows it. */
function fill(text: string, values: Record<string, string> = {}): string {
  return text.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? `{${name}}`);
}

const PASSWORD = 'velvet otter lantern 58';

/** Longer words must not push a page wider than a 375 px phone. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  await page.setViewportSize({ width: 375, height: 812 });
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
    .toBeLessThanOrEqual(375);
  await page.setViewportSize({ width: 1440, height: 900 });
}

/** Every text the page shows in its drawn HTML, before any of its code has run. */
async function firstHtmlOf(page: Page, path: string): Promise<string> {
  const response = await page.request.get(path, {
    headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' },
  });
  return response.text();
}

test.describe('a visitor whose browser asks for German', () => {
  test.use({ locale: 'de-DE' });

  test('sees /home, /auth/login and /purchase in German, lang="de", with no English drawn first', async ({
    page,
  }, testInfo) => {
    for (const [path, heading] of [
      ['/home', say(de, 'marketing', 'title')],
      ['/auth/login', say(de, 'auth', 'signIn')],
      ['/purchase', say(de, 'purchase', 'title')],
    ] as const) {
      // The server's HTML is German already: nothing English to flash before the app runs.
      const html = await firstHtmlOf(page, path);
      expect(html, path).toContain('<html lang="de">');
      expect(html, path).toContain(fill(heading).replaceAll("'", '&#x27;'));
      expect(html, path).not.toContain(say(en, 'common', 'skipToContent'));

      await page.goto(path);
      await expect(page.locator('html')).toHaveAttribute('lang', 'de');
      await expect(page.getByRole('heading', { level: 1, name: fill(heading) })).toBeVisible();
      await expect(
        page
          .getByRole('navigation', { name: say(de, 'common', 'footerNavigation') })
          .getByRole('link', { name: say(de, 'common', 'privacyPolicy') }),
      ).toBeVisible();
      await screenshotBothWidths(page, testInfo, `de${path.replaceAll('/', '-')}`);
      await expectNoSidewaysScroll(page);
    }
  });

  test('still gets a working page, in English, when the German texts cannot be fetched', async ({
    page,
  }) => {
    // The catalog chunks of every language are named after it (de-<hash>.js).
    await page.route(/\/assets\/de-[\w-]+\.js$/, (route) => route.abort());
    await page.goto('/home');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect(
      page.getByRole('heading', { level: 1, name: say(en, 'marketing', 'title') }),
    ).toBeVisible();
    await page
      .getByRole('navigation', { name: say(en, 'common', 'accountNavigation') })
      .getByRole('link', { name: say(en, 'common', 'signIn') })
      .click();
    await expect(page).toHaveURL(/\/auth\/login$/);
  });

  test('registers with a short password and reads the German message under the field', async ({
    page,
  }) => {
    await page.goto('/auth/register');
    await page.getByLabel(say(de, 'auth', 'email'), { exact: true }).fill(uniqueEmail('kurz'));
    await page.getByLabel(say(de, 'auth', 'password'), { exact: true }).fill('kurz');
    await page.getByLabel(say(de, 'auth', 'confirmPassword'), { exact: true }).fill('kurz');
    await page.getByRole('button', { name: say(de, 'auth', 'createAccount') }).click();
    await expect(page.getByText(say(de, 'messages', 'field.passwordTooShort'))).toBeVisible();
    await expect(page.getByText(say(en, 'messages', 'field.passwordTooShort'))).toHaveCount(0);
  });

  test('keeps what he typed while the German texts of the page were still on their way', async ({
    page,
  }) => {
    // The chunk with the register page's German texts is held back until he has typed: its
    // arrival must not draw the form afresh over what he typed (React was still taking the
    // prerendered page over). Every other German chunk passes at once.
    const pageTexts = say(de, 'auth', 'alreadyHaveAccount');
    let releasePageTexts = (): void => {};
    const pageTextsReleased = new Promise<void>((resolve) => (releasePageTexts = resolve));
    let heldBack = 0;
    await page.route(/\/assets\/de-[\w-]+\.js$/, async (route) => {
      const response = await route.fetch();
      const body = await response.text();
      if (body.includes(pageTexts)) {
        heldBack += 1;
        await pageTextsReleased;
      }
      await route.fulfill({ response, body });
    });
    const email = uniqueEmail('frueh');
    await page.goto('/auth/register');
    const emailField = page.getByLabel(say(de, 'auth', 'email'), { exact: true });
    await emailField.fill(email);
    await page.getByLabel(say(de, 'auth', 'password'), { exact: true }).fill('kurz');
    await page.getByLabel(say(de, 'auth', 'confirmPassword'), { exact: true }).fill('kurz');
    await expect.poll(() => heldBack, 'the German texts of the page are held back').toBe(1);
    releasePageTexts();

    const createAccount = page.getByRole('button', { name: say(de, 'auth', 'createAccount') });
    await expect(createAccount).toBeEnabled();
    await expect(emailField).toHaveValue(email);
    await createAccount.click();
    await expect(page.getByText(say(de, 'messages', 'field.passwordTooShort'))).toBeVisible();
  });

  test('registers, asks for a reset link, and receives it in German', async ({ page, request }) => {
    const email = uniqueEmail('deutsch');
    await page.goto('/auth/register');
    await page.getByLabel(say(de, 'auth', 'email'), { exact: true }).fill(email);
    await page.getByLabel(say(de, 'auth', 'password'), { exact: true }).fill(PASSWORD);
    await page.getByLabel(say(de, 'auth', 'confirmPassword'), { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: say(de, 'auth', 'createAccount') }).click();
    await expect(page).toHaveURL(/\/auth\/login$/);

    await page.getByRole('link', { name: say(de, 'auth', 'forgotPassword') }).click();
    await expect(page.getByRole('heading', { name: say(de, 'auth', 'resetTitle') })).toBeVisible();
    await page.getByLabel(say(de, 'auth', 'email'), { exact: true }).fill(email);
    await page.getByRole('button', { name: say(de, 'auth', 'sendResetLink') }).click();
    await expect(
      page.getByRole('heading', { name: say(de, 'auth', 'checkInboxTitle') }),
    ).toBeVisible();

    const mail = await readEmail(request, email, say(de, 'mail', 'passwordReset.subject'));
    expect(mail.text).toContain(fill(say(de, 'mail', 'passwordReset.heading')));
    expect(mail.text).not.toContain(say(en, 'mail', 'passwordReset.heading'));
    // The link leads to a German page too.
    await page.goto(linkIn(mail));
    await expect(page.locator('html')).toHaveAttribute('lang', 'de');
  });
});

test.describe('a member who chooses Spanish', () => {
  test('switches in Account Settings, sees the site in Spanish, and his next mail is Spanish', async ({
    page,
    request,
  }, testInfo) => {
    const email = uniqueEmail('espanol');
    const created = await request.post('/api/auth/local/register/email', {
      data: { email, password: PASSWORD },
      headers: { 'accept-language': 'en' },
    });
    expect(created.status()).toBe(201);
    await signIn(page, email, PASSWORD);
    await page.goto('/dashboard/settings');
    await page
      .getByRole('combobox', { name: say(en, 'account', 'language.label') })
      .selectOption('es');
    await expect(page.locator('html')).toHaveAttribute('lang', 'es');
    await expect(
      page.getByRole('heading', { level: 1, name: say(es, 'account', 'settings.title') }),
    ).toBeVisible();
    await screenshotBothWidths(page, testInfo, 'es-dashboard-settings');
    await expectNoSidewaysScroll(page);

    // The next page load is Spanish too: the choice is his, kept on the server and in the cookie.
    await page.goto('/dashboard');
    await expect(page.locator('html')).toHaveAttribute('lang', 'es');

    const reset = await request.post('/api/auth/reset-password', { data: { email } });
    expect(reset.ok()).toBe(true);
    const mail = await readEmail(request, email, say(es, 'mail', 'passwordReset.subject'));
    expect(mail.text).toContain(fill(say(es, 'mail', 'passwordReset.heading')));
  });
});

test.describe('the pseudo-locale', () => {
  test('shows every text of the visitor pages from a catalog', async ({ page, context }) => {
    await page.goto('/home');
    await context.addCookies([
      { name: 'kegel-locale', value: 'en-XA', url: new URL(page.url()).origin },
    ]);
    for (const path of ['/home', '/auth/login', '/auth/register', '/auth/reset', '/purchase']) {
      await page.goto(path);
      await expect(page.locator('html')).toHaveAttribute('lang', 'en-XA');
      await page.waitForLoadState('networkidle');
      const untranslated = await page.locator('#root').evaluate((root) => {
        const texts: string[] = [];
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent?.trim() ?? '';
          // The language links name each language in itself (lang="de": "Deutsch").
          if (node.parentElement?.closest('[lang]') !== document.documentElement) continue;
          // Numbers, prices and signs are not words; anything with a letter must be bracketed.
          if (/[A-Za-z]/.test(text) && !text.includes('⟦') && !text.includes('⟧')) texts.push(text);
        }
        return texts;
      });
      expect(untranslated, path).toEqual([]);
    }
  });
});
