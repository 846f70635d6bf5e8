// Review of issue 29 (languages): what a careless server or a crafted link can do to the app's texts.
import en from '@kegel/contract/catalogs/en.json';
import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';

import { preferencesServer } from '../../testing/preferences-server';
import { renderApp, signInAs } from '../../testing/render-app';
import { i18n, localizeMessage, switchLocale } from './i18n';

afterEach(async () => {
  await switchLocale('en');
  document.cookie = 'kegel-locale=; path=/; max-age=0';
});

describe('i18n review', () => {
  it('keeps the app readable when a (newer) server answers a language it does not know', async () => {
    // The client does not parse answers with the contract's schema: 'fr' reaches the app as is.
    signInAs({ locale: 'fr' as never });
    preferencesServer({ locale: 'fr' as never });
    renderApp('/dashboard/settings');
    expect(
      await screen.findByRole('heading', { level: 1, name: en.account['settings.title'] }),
    ).toBeVisible();
    // Give the profile's arrival its chance to switch the language.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(i18n.locale).toBe('en');
    expect(document.documentElement.lang).not.toBe('fr');
    expect(document.cookie).not.toContain('kegel-locale=fr');
    expect(screen.queryByText(/^account\./)).toBeNull();
  });

  it("shows a value from the address as it is: Lingui's \\xNN decoding must not alter it", async () => {
    // An emailed reset link whose email holds a backslash sequence: the page must show the address
    // the reset acts for, not a decoded one (a\x41@x.io shown as aA@x.io).
    renderApp('/account/recover/new?email=a%5Cx41%40example.com&code=abc');
    expect(await screen.findByText('a\\x41@example.com')).toBeVisible();
    expect(screen.queryByText('aA@example.com')).toBeNull();
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'passes a text that only the prototype knows (%s) through as it is',
    (text) => {
      // An error's message reaches localizeMessage (a provider's popup, a server's refusal): an
      // object's inherited names are no message ids (`__proto__` gave an object React cannot draw).
      expect(localizeMessage(text)).toBe(text);
    },
  );
});
