import { QueryClientProvider, useMutation } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { findToast, queryToast } from '../../testing/render-app';
import { ToastRegion } from '../ui/toast-region';
import { createQueryClient, freshness } from './query-client';

/** A button that runs `work` as a mutation, with or without progress toasts. */
function WriteButton({
  work,
  toasts,
  showOnField,
}: {
  work: () => Promise<unknown>;
  toasts?: { pending: string; success: string };
  showOnField?: (error: Error) => boolean;
}): React.JSX.Element {
  const mutation = useMutation({ mutationFn: work, meta: { toasts, showOnField } });
  return (
    <button type="button" onClick={() => mutation.mutate()}>
      Save
    </button>
  );
}

function renderWithClient(ui: React.JSX.Element) {
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={createQueryClient()}>
      {ui}
      <ToastRegion />
    </QueryClientProvider>,
  );
  return { user };
}

function deferred() {
  let resolve: (value: unknown) => void = () => {};
  let reject: (error: Error) => void = () => {};
  const promise = new Promise((done, fail) => {
    resolve = done;
    reject = fail;
  });
  return { promise, resolve, reject };
}

const TEXTS = { pending: 'Changing password', success: 'Password changed successfully' };

describe('the toasts of a write', () => {
  it('show the pending text while it runs, then the success text', async () => {
    const call = deferred();
    const { user } = renderWithClient(<WriteButton work={() => call.promise} toasts={TEXTS} />);
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await findToast('Changing password')).toBeVisible();

    call.resolve({ message: 'ok' });
    expect(await findToast('Password changed successfully')).toBeVisible();
    expect(queryToast('Changing password')).not.toBeInTheDocument();
  });

  it("turn into the error's message when it fails", async () => {
    const call = deferred();
    const { user } = renderWithClient(<WriteButton work={() => call.promise} toasts={TEXTS} />);
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await findToast('Changing password')).toBeVisible();

    call.reject(new Error('Current password is incorrect'));
    expect(await findToast('Current password is incorrect')).toBeVisible();
    expect(queryToast('Changing password')).not.toBeInTheDocument();
  });

  it('leave the error to the form when it shows the message under a field', async () => {
    const shownOnField: string[] = [];
    const { user } = renderWithClient(
      <WriteButton
        work={() => Promise.reject(new Error('This password is too common'))}
        toasts={TEXTS}
        showOnField={(error) => {
          shownOnField.push(error.message);
          return true;
        }}
      />,
    );
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(shownOnField).toEqual(['This password is too common']));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(queryToast('This password is too common')).not.toBeInTheDocument();
  });

  it("still show the error's message when the form has no field for it", async () => {
    const { user } = renderWithClient(
      <WriteButton
        work={() => Promise.reject(new Error('Current password is incorrect'))}
        toasts={TEXTS}
        showOnField={() => false}
      />,
    );
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await findToast('Current password is incorrect')).toBeVisible();
  });

  it('are not shown for a write that carries no texts', async () => {
    const { user } = renderWithClient(
      <WriteButton work={() => Promise.reject(new Error('Not shown'))} />,
    );
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(queryToast('Not shown')).not.toBeInTheDocument();
  });
});

describe('the query client', () => {
  it('caches every answer for an hour and never retries, unless a query names a preset', () => {
    const defaults = createQueryClient().getDefaultOptions();
    expect(defaults.queries).toMatchObject({ ...freshness.standard, retry: false });
    expect(freshness.standard.staleTime).toBe(60 * 60 * 1000);
    expect(defaults.mutations).toMatchObject({ retry: false });
  });
});
