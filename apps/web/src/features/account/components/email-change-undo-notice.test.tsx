import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { fakeApi } from '../../../testing/fake-api';
import { findToast, renderApp, signInAs } from '../../../testing/render-app';

const UNTIL = '2026-11-28T16:05:00.000Z';

function answerWindows(canCloseHere: boolean) {
  let open = true;
  fakeApi.on('listEmailChangeUndoWindows', () => ({
    body: {
      undoWindows: open
        ? [{ previousEmail: 'old@example.com', undoableUntil: UNTIL, canCloseHere }]
        : [],
    },
  }));
  fakeApi.on('closeEmailChangeUndoWindows', () => {
    open = false;
    return { body: { message: 'Your previous address can no longer undo the change.' } };
  });
}

describe('/dashboard/settings, after an email change', () => {
  it('says until when the previous address can undo it, and closes that from a long-standing device', async () => {
    signInAs();
    answerWindows(true);
    const { user } = renderApp('/dashboard/settings');

    const notice = within(
      await screen.findByRole('region', { name: 'Your previous email can still undo the change' }),
    );
    expect(notice.getByText(/old@example\.com/)).toBeVisible();
    expect(notice.getByText(/^Until .*November 28, 2026/)).toBeVisible();
    await user.click(notice.getByRole('button', { name: 'Close it now' }));

    expect(await findToast('Your previous address can no longer undo the change.')).toBeVisible();
    expect(fakeApi.requestsTo('closeEmailChangeUndoWindows')).toHaveLength(1);
    await expect
      .poll(() => screen.queryByRole('region', { name: /can still undo the change/ }))
      .toBeNull();
  });

  it('offers no closing on a device signed in since the change, and says why', async () => {
    signInAs();
    answerWindows(false);
    renderApp('/dashboard/settings');

    const notice = within(
      await screen.findByRole('region', { name: 'Your previous email can still undo the change' }),
    );
    expect(notice.getByText(/signed in at least 7 days before the change/)).toBeVisible();
    expect(notice.queryByRole('button', { name: 'Close it now' })).toBeNull();
  });
});
