import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { renderApp, signInAs } from '../../../testing/render-app';

/** README, Product rules: each card's button leads to the account, whoever is reading. */
describe('/home', () => {
  it("offers a visitor 'Sign in' on each card, to /auth/login", async () => {
    renderApp('/home');

    const buttons = await screen.findAllByRole('link', { name: 'Sign in' });
    expect(buttons).toHaveLength(3);
    for (const button of buttons) expect(button).toHaveAttribute('href', '/auth/login');
    expect(screen.queryByRole('link', { name: 'Go to Profile' })).toBeNull();
  });

  it("offers a signed-in member 'Go to Profile' on each card, to /dashboard", async () => {
    signInAs();
    renderApp('/home');

    const buttons = await screen.findAllByRole('link', { name: 'Go to Profile' });
    expect(buttons).toHaveLength(3);
    for (const button of buttons) expect(button).toHaveAttribute('href', '/dashboard');
    expect(screen.queryByRole('link', { name: 'Sign in' })).toBeNull();
  });
});
