import { useSyncExternalStore } from 'react';

const neverChanges = (): (() => void) => () => {};

/**
 * False while the app is taking over a page the build prerendered (hydration draws what the server
 * drew, and the server has no app running), true from the render after, and always true on a page
 * the browser drew itself. What only works with the app's code, a form's submit above all, waits
 * on it.
 */
export function useIsAppRunning(): boolean {
  return useSyncExternalStore(
    neverChanges,
    () => true,
    () => false,
  );
}
