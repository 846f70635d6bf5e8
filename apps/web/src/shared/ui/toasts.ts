// Every toast of the app is asked for here, never from react-toastify directly: the library and its
// stylesheet are loaded with the first toast, not with the first page (most visits show none, and
// they weighed 7 KB of gzip on every page). Until the container has loaded and mounted
// (toast-region.tsx), the toasts asked for wait for it, in order, so a write's progress toast is
// always made before it is turned into success or error.
import type { toast as ToastFunction } from 'react-toastify/unstyled';

type Toast = typeof ToastFunction;

let mountedToast: Toast | null = null;
let waiting: Array<(toast: Toast) => void> = [];
let isRequested = false;
const listeners = new Set<() => void>();

function withToast(show: (toast: Toast) => void): void {
  if (mountedToast) {
    show(mountedToast);
    return;
  }
  waiting.push(show);
  if (!isRequested) {
    isRequested = true;
    for (const listener of listeners) listener();
  }
}

/** How ToastRegion learns that a toast was asked for, and how its loaded container takes over. */
export const toastRegion = {
  subscribe: (listener: () => void): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  isRequested: (): boolean => isRequested,
  /** Called once the container is mounted: shows what waited. Returns the detach. */
  attach: (toast: Toast): (() => void) => {
    mountedToast = toast;
    const shown = waiting;
    waiting = [];
    for (const show of shown) show(toast);
    return () => {
      if (mountedToast === toast) mountedToast = null;
    };
  },
};

export interface ToastOptions {
  /** One toast however many times it is asked for while shown (an invalid link's message). */
  id?: string;
}

/** One-off messages; they close after 5000 ms like every toast. */
export const toasts = {
  error(message: string, { id }: ToastOptions = {}): void {
    withToast((toast) => toast.error(message, { toastId: id }));
  },
  info(message: string, { id }: ToastOptions = {}): void {
    withToast((toast) => toast.info(message, { toastId: id }));
  },
  success(message: string, { id }: ToastOptions = {}): void {
    withToast((toast) => toast.success(message, { toastId: id }));
  },
};

/**
 * The progress toast of a write: a loading toast that turns into success or error and then
 * closes after 5000 ms, like every toast. Shown by the query client for every mutation that
 * carries its texts (shared/query/query-client.ts), never by hand.
 */
export interface ProgressToastTexts {
  /** While the write runs: 'Authenticating'. */
  pending: string;
  /** When it succeeded: 'Successfully authenticated'. */
  success: string;
}

const SETTLED = { isLoading: false, autoClose: 5000, closeButton: true } as const;

export function startProgressToast(id: string, texts: ProgressToastTexts): void {
  withToast((toast) => toast.loading(texts.pending, { toastId: id }));
}

export function succeedProgressToast(id: string, texts: ProgressToastTexts): void {
  withToast((toast) => toast.update(id, { ...SETTLED, render: texts.success, type: 'success' }));
}

/** The error's message is the server's, arrays already joined by newlines (http/api-client.ts). */
export function failProgressToast(id: string, message: string): void {
  withToast((toast) => toast.update(id, { ...SETTLED, render: message, type: 'error' }));
}

/** Closes the write's toast without a word: its form already shows the outcome under a field. */
export function dismissProgressToast(id: string): void {
  withToast((toast) => toast.dismiss(id));
}
