// The pages the account's emails link to, drawn in German: their own texts (the account
// namespace), the contract's refusal inside one (the messages namespace, through
// localizeMessage), and a link inside a sentence (RichText).
import { screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { switchLocale } from '../../../shared/i18n/i18n';
import { findToast, renderApp } from '../../../testing/render-app';

describe('the account link pages in German', () => {
  beforeEach(async () => {
    await switchLocale('de');
  });

  afterEach(async () => {
    await switchLocale('en');
  });

  it('asks before securing the account after a sign-in that was not the owner', async () => {
    renderApp('/account/sign-in-not-me?code=from-the-notice');
    expect(
      await screen.findByRole('heading', {
        level: 1,
        name: 'Haben Sie sich nicht selbst angemeldet?',
      }),
    ).toBeVisible();
    expect(screen.getByRole('button', { name: 'Mein Konto schützen' })).toBeEnabled();
    expect(screen.getByRole('link', { name: 'zur Startseite' })).toHaveAttribute('href', '/home');
  });

  it("says in German that a link without its code does not work, with the contract's words", async () => {
    renderApp('/account/cancel-email-change');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Dieser Link funktioniert nicht' }),
    ).toBeVisible();
    const refusal = 'Dieser Link ist ungültig, wurde bereits verwendet oder ist abgelaufen.';
    expect(
      screen.getByText(
        `${refusal} Falls Sie ihn bereits verwendet haben, wurde die Änderung damals abgebrochen.`,
      ),
    ).toBeVisible();
    expect(await findToast(refusal)).toBeVisible();
    expect(screen.getByRole('link', { name: 'Wählen Sie ein neues' })).toBeVisible();
  });
});
