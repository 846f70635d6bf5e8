import { toast } from 'react-toastify/unstyled';

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
  toast.loading(texts.pending, { toastId: id });
}

export function succeedProgressToast(id: string, texts: ProgressToastTexts): void {
  toast.update(id, { ...SETTLED, render: texts.success, type: 'success' });
}

/** The error's message is the server's, arrays already joined by newlines (http/api-client.ts). */
export function failProgressToast(id: string, message: string): void {
  toast.update(id, { ...SETTLED, render: message, type: 'error' });
}

/** Closes the write's toast without a word: its form already shows the outcome under a field. */
export function dismissProgressToast(id: string): void {
  toast.dismiss(id);
}
