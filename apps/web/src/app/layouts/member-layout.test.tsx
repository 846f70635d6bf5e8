import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { tokenStore } from '../../shared/http/api';
import { errorReply, fakeApi } from '../../testing/fake-api';
import { renderApp, signInAs } from '../../testing/render-app';

describe('Logout in the member menu', () => {
  it.each([
    { answer: 'ends the session', reply: { body: { message: 'Signed out' } } },
    {
      answer: 'refuses the token (401)',
      reply: errorReply(401, 'Your session has ended. Please sign in again.'),
    },
  ])(
    'tells the server, forgets the tokens and goes to /auth/login when the server $answer',
    async ({ reply }) => {
      signInAs();
      const { refreshToken } = tokenStore.read()!;
      fakeApi.on('logout', reply);
      const { user, pathname, search } = renderApp('/dashboard/settings');

      await user.click(await screen.findByRole('button', { name: 'Logout' }));

      await waitFor(() => expect(pathname()).toBe('/auth/login'));
      expect(search()).toBe('');
      expect(tokenStore.read()).toBeNull();
      expect(fakeApi.requestsTo('logout').map((request) => request.body)).toEqual([
        { refreshToken },
      ]);
      expect(await screen.findByRole('button', { name: 'Sign In' })).toBeVisible();
    },
  );
});
