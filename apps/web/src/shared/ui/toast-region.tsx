import { type ComponentType, useEffect, useState, useSyncExternalStore } from 'react';

import { toastRegion } from './toasts';
import { useCommonTextAnywhere } from './use-common-text-anywhere';

/**
 * Where the toasts appear (top-right). Nothing until the first toast is asked for (toasts.ts);
 * then react-toastify's container is loaded and mounted, and the toasts that waited are shown.
 */
export function ToastRegion(): React.JSX.Element | null {
  // The texts here, not in the loaded container: its chunk then carries no i18n code.
  const text = useCommonTextAnywhere();
  const isRequested = useSyncExternalStore(
    toastRegion.subscribe,
    toastRegion.isRequested,
    () => false,
  );
  const [Container, setContainer] = useState<ComponentType<{ label: string }> | null>(null);

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

  // The region's name, with react-toastify's key for reaching it (Alt+T).
  return Container ? <Container label={text('notifications')} /> : null;
}
