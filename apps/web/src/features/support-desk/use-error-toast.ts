import { useEffect } from 'react';

import { toasts } from '../../shared/ui/toasts';
import { asksForSecondFactor } from './api';

/**
 * A read of the desk that failed, told in the app's error toast (writes get theirs from the query
 * client). Not the expired second factor: the desk then shows its form instead.
 */
export function useErrorToast(error: Error | null): void {
  useEffect(() => {
    if (error && !asksForSecondFactor(error)) toasts.error(error.message);
  }, [error]);
}
