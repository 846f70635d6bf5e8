import { useEffect } from 'react';

import { localizeMessage } from '../../shared/i18n/i18n';
import { toasts } from '../../shared/ui/toasts';
import { asksForSecondFactor } from './api';

/**
 * A read of the desk that failed, told in the app's error toast (writes get theirs from the query
 * client). Not the expired second factor: the desk then shows its form instead.
 */
export function useErrorToast(error: Error | null): void {
  useEffect(() => {
    if (error && !asksForSecondFactor(error)) toasts.error(localizeMessage(error.message));
  }, [error]);
}
