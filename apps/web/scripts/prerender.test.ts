// The build's prerendering, on a fresh build of the web app in a folder of its own: the visitors'
// pages carry their content in #root, nothing that a browser with a strict Content-Security-Policy
// would refuse, and the member area only the frame shown while a member's profile loads.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { pageFile, prerenderPages } from './prerender.mjs';

const webRoot = fileURLToPath(new URL('..', import.meta.url));
let outDir: string;

function rootOf(address: string): string {
  const html = readFileSync(pageFile(outDir, address), 'utf8');
  // #root is the body's only content (Vite puts the scripts in the head).
  return html.slice(html.indexOf('<div id="root">'), html.lastIndexOf('</body>'));
}

beforeAll(async () => {
  outDir = mkdtempSync(path.join(tmpdir(), 'kegel-web-prerender-'));
  await build({
    root: webRoot,
    configFile: path.join(webRoot, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true },
  });
  await prerenderPages({ webRoot, distDir: outDir });
});

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe('prerendered pages', () => {
  it.each([
    ['/home', 'men&#x27;s health'],
    ['/auth/login', 'Welcome back'],
    ['/auth/register', 'Create Account'],
    ['/auth/reset', 'Reset Password'],
    ['/purchase', 'Get Premium'],
  ])('%s arrives with its content drawn (%s)', (address, text) => {
    const root = rootOf(address);
    expect(root).toContain(text);
    expect(root).toContain('Kegel Coach');
  });

  it('hold their submit until the app runs, take typing at once, and carry no inline style', () => {
    const login = rootOf('/auth/login');
    expect(login).toMatch(/<button type="submit"[^>]* disabled=""/);
    // What is typed before the app runs is kept (use-contract-form.ts): no field waits for it.
    expect(login).toMatch(/<input[^>]* type="email"/);
    expect(login).not.toMatch(/readonly/i);
    for (const address of ['/home', '/auth/login', '/auth/register', '/auth/reset', '/purchase']) {
      expect(rootOf(address), address).not.toContain('style=');
    }
  });

  it.each(['/dashboard', '/dashboard/history', '/dashboard/settings'])(
    'give %s only the loading frame, nothing of a member, for the app to draw over',
    (address) => {
      const html = readFileSync(pageFile(outDir, address), 'utf8');
      const root = html.slice(html.indexOf('<div id="root"'), html.lastIndexOf('</body>'));
      // Replaced, not hydrated (src/main.tsx): the member's own page is drawn in the browser.
      expect(root).toMatch(/^<div id="root" data-frame-only>/);
      expect(root).toContain('Kegel Coach');
      expect(root).toContain('Loading your profile');
      expect(root).not.toContain('Sign In');
      expect(root).not.toContain('Member Settings');
      expect(root).not.toContain('style=');
    },
  );
});

describe('prerendered pages in every language', () => {
  function htmlOf(address: string, locale: string): string {
    return readFileSync(pageFile(outDir, address, locale), 'utf8');
  }

  it.each([
    ['de', 'Zum Inhalt springen', 'Datenschutzerklärung'],
    ['es', 'Saltar al contenido', 'Política de privacidad'],
  ])('draws each page again in %s, with its <html lang>', (locale, skipLink, privacy) => {
    for (const address of ['/home', '/auth/login', '/auth/register', '/auth/reset', '/purchase']) {
      const html = htmlOf(address, locale);
      expect(html, address).toContain(`<html lang="${locale}">`);
      expect(html, address).toContain(skipLink);
      expect(html, address).toContain(privacy);
      expect(html, address).not.toContain('Skip to content');
    }
    // The member area's frame, and the pages drawn by the app alone, are in the language too.
    expect(htmlOf('/dashboard', locale)).toContain(`<html lang="${locale}">`);
    expect(readFileSync(path.join(outDir, 'languages', locale, 'index.html'), 'utf8')).toContain(
      `<html lang="${locale}">`,
    );
  });

  it("preloads a page's texts in its language beside its code, and no other language's", () => {
    const manifest = JSON.parse(
      readFileSync(path.join(outDir, '.vite/manifest.json'), 'utf8'),
    ) as Record<string, { file: string }>;
    const fileOf = (key: string): string => {
      const found = Object.entries(manifest).find(([name]) => name.endsWith(key));
      return `/${found?.[1].file ?? `(no ${key})`}`;
    };
    const german = htmlOf('/auth/login', 'de');
    for (const namespace of ['common', 'auth', 'forms', 'messages']) {
      expect(german).toContain(`href="${fileOf(`catalog/${namespace}/de`)}"`);
      expect(german).not.toContain(`href="${fileOf(`catalog/${namespace}/es`)}"`);
    }
    expect(htmlOf('/auth/login', 'en')).not.toContain(fileOf('catalog/auth/de'));
  });

  it('keeps English where it was, and draws the pseudo-locale bracketed and accented', () => {
    expect(htmlOf('/home', 'en')).toContain('<html lang="en">');
    expect(htmlOf('/home', 'en')).toContain('Skip to content');
    expect(htmlOf('/home', 'en-XA')).toContain('⟦Šķíþ ţó çóñţéñţ');
  });
});

describe('the scripts of a page the build has drawn', () => {
  function scriptTags(address: string): string[] {
    const html = readFileSync(pageFile(outDir, address), 'utf8');
    return html.match(/<(script type="module"|link rel="modulepreload")[^>]*>/g) ?? [];
  }

  it.each(['/home', '/auth/login', '/purchase', '/dashboard'])(
    'come after the stylesheets on %s: its first paint needs none of them',
    (address) => {
      const tags = scriptTags(address);
      expect(tags.length).toBeGreaterThan(1);
      for (const tag of tags) expect(tag).toContain('fetchpriority="low"');
    },
  );

  it('keep their priority on a page drawn only in the browser, which waits for them', () => {
    const tags = scriptTags('/account/verify-email');
    expect(tags.length).toBeGreaterThan(1);
    for (const tag of tags) expect(tag).not.toContain('fetchpriority');
  });
});
