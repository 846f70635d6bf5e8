import { act, render, screen } from '@testing-library/react';
import { type ComponentType, lazy, Suspense } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { describe, expect, it, vi } from 'vitest';

import { PageTakenOver, PageTakeover, useIsAppRunning } from './use-is-app-running';

function Submit({ name }: { name: string }): React.JSX.Element {
  return <button disabled={!useIsAppRunning()}>{name}</button>;
}

function PageSubmit(): React.JSX.Element {
  return <Submit name="Send" />;
}

/**
 * As app/router.tsx draws the pages: the marker beside a page whose code loads lazily, inside the
 * one Suspense boundary; and, outside it, a part taken over at once (a frame's button).
 */
function page(Page: ComponentType): React.JSX.Element {
  return (
    <PageTakeover>
      <Submit name="Frame" />
      <Suspense fallback={null}>
        <PageTakenOver />
        <Page />
      </Suspense>
    </PageTakeover>
  );
}

describe('useIsAppRunning', () => {
  it('is true from the first render on a page the browser draws itself', () => {
    render(<Submit name="Send" />);
    expect(screen.getByRole('button', { name: 'Send' })).toBeEnabled();
  });

  it('holds a drawn page until its lazily loaded part is taken over, then lets it go', async () => {
    // What the build draws for page(PageSubmit) (react-dom/static's prerender, as prerender.tsx
    // calls it): written out rather than drawn here, because the server renderer leaves the
    // context's value it provided behind in the module, and the test files sharing this worker
    // would then read `false` outside any PageTakeover.
    const container = document.createElement('div');
    container.innerHTML =
      '<button disabled="">Frame</button><!--$--><button disabled="">Send</button><!--/$-->';
    document.body.append(container);
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();

    // In the browser the page's code arrives after hydration has begun.
    let arrive: (module: { default: ComponentType }) => void = () => {};
    const PageArrivingLater = lazy(
      () => new Promise<{ default: ComponentType }>((resolve) => (arrive = resolve)),
    );
    const onRecoverableError = vi.fn();
    let root: ReturnType<typeof hydrateRoot> | undefined;
    await act(async () => {
      root = hydrateRoot(container, page(PageArrivingLater), { onRecoverableError });
    });
    // The frame is taken over already, the page not yet: both wait, the frame's by the app's say.
    expect(screen.getByRole('button', { name: 'Frame' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();

    await act(async () => arrive({ default: PageSubmit }));
    expect(screen.getByRole('button', { name: 'Frame' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Send' })).toBeEnabled();
    // Taken over as drawn, not drawn afresh.
    expect(onRecoverableError).not.toHaveBeenCalled();
    act(() => root?.unmount());
    container.remove();
  });
});
