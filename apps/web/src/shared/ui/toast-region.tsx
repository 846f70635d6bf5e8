import { type ComponentType, useEffect, useState, useSyncExternalStore } from 'react';

import { toastRegion } from './toasts';

/**
 * Where the toasts appear (top-right). Nothing until the first toast is asked for (toasts.ts);
 * then react-toastify's container is loaded and mounted, and the toasts that waited are shown.
 */
export function ToastRegion(): React.JSX.Element | null {
  const isRequested = useSyncExternalStore(
    toastRegion.subscribe,
    toastRegion.isRequested,
    () => false,
  );
  const [Container, setContainer] = useState<ComponentType | null>(null);

  useEffect(() => {
    if (!isRequested || Container) return;
    let isCurrent = true;
    import('./toast-container')
      .then(({ LoadedToastContainer }) => {
        if (isCurrent) setContainer(() => LoadedToastContainer);
      })
      // Without its code (connection gone, or a deploy replaced the files) there are no toasts;
      // the page itself still works and shows its own errors.
      .catch(() => undefined);
    return () => {
      isCurrent = false;
    };
  }, [isRequested, Container]);

  return Container ? <Container /> : null;
}
