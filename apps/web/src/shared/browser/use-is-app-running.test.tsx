import { act, render, screen } from '@testing-library/react';
import { type ComponentType, lazy, Suspense } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { prerender } from 'react-dom/static';
import { describe, expect, it, vi } from 'vitest';

import { PageTakenOver, PageTakeover, useIsAppRunning } from './use-is-app-running';

function Submit(): React.JSX.Element {
  return <button disabled={!useIsAppRunning()}>Send</button>;
}

/** As app/router.tsx draws the pages: the marker beside a page whose code loads lazily. */
function page(Page: ComponentType): React.JSX.Element {
  return (
    <PageTakeover>
      <Suspense fallback={null}>
        <PageTakenOver />
        <Page />
      </Suspense>
    </PageTakeover>
  );
}

describe('useIsAppRunning', () => {
  it('is true from the first render on a page the browser draws itself', () => {
    render(<Submit />);
    expect(screen.getByRole('button', { name: 'Send' })).toBeEnabled();
  });

  it('holds a drawn page until its lazily loaded part is taken over, then lets it go', async () => {
    const drawn = await prerender(page(lazy(async () => ({ default: Submit }))));
    const container = document.createElement('div');
    container.innerHTML = await new Response(drawn.prelude).text();
    document.body.append(container);
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();

    // In the browser the page's code arrives after hydration has begun.
    let arrive: (module: { default: ComponentType }) => void = () => {};
    const PageArrivingLater = lazy(() => new Promise((resolve) => (arrive = resolve)));
    const onRecoverableError = vi.fn();
    await act(async () => {
      hydrateRoot(container, page(PageArrivingLater), { onRecoverableError });
    });
    // Taken over in part only: the button is still the server's, and still held.
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();

    await act(async () => arrive({ default: Submit }));
    expect(screen.getByRole('button', { name: 'Send' })).toBeEnabled();
    // Taken over as drawn, not drawn afresh.
    expect(onRecoverableError).not.toHaveBeenCalled();
    container.remove();
  });
});
