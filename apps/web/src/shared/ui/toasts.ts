import { toast } from 'react-toastify';

/**
 * A pending toast that turns into success or error (spec §4, §8): 'Authenticating' →
 * 'Successfully authenticated', or the server's message. Returns what the work returned;
 * rethrows its error after showing it.
 */
export async function withProgressToast<T>(
  texts: { pending: string; success: string },
  work: () => Promise<T>,
): Promise<T> {
  const id = toast.loading(texts.pending);
  try {
    const result = await work();
    toast.update(id, {
      render: texts.success,
      type: 'success',
      isLoading: false,
      autoClose: 5000,
      closeButton: true,
    });
    return result;
  } catch (error) {
    toast.update(id, {
      render: (error as Error).message,
      type: 'error',
      isLoading: false,
      autoClose: 5000,
      closeButton: true,
    });
    throw error;
  }
}
