// The app's one query client. Cache times and retries are set here once for every query, and
// the toasts of every write are shown here once, from the texts a mutation carries in its meta;
// a refusal that its form shows under a field gets no toast.
import { MutationCache, type MutationMeta, QueryClient } from '@tanstack/react-query';

import {
  dismissProgressToast,
  failProgressToast,
  type ProgressToastTexts,
  startProgressToast,
  succeedProgressToast,
} from '../ui/toasts';

declare module '@tanstack/react-query' {
  interface Register {
    mutationMeta: {
      /**
       * A loading toast while the write runs, turned into `success` or into the error's message
       * (the server's) when it ends. Writes without it show nothing by themselves.
       */
      toasts?: ProgressToastTexts;
      /**
       * Offered a failed write's error before any toast: true when the form that sent it showed
       * the message under one of its fields (`useContractForm`'s `showOnField`), and then no
       * toast repeats it.
       */
      showOnField?: (error: Error) => boolean;
      /**
       * True for a success that is only a step on the way (a sign-in that now asks for its
       * code): its progress toast goes without a word, the page shows what comes next.
       */
      isStepOnTheWay?: (data: unknown) => boolean;
    };
  }
}

/** What a write takes from the form that sends it: `useRegister({ showOnField })`. */
export type SendingForm = Pick<MutationMeta, 'showOnField'>;

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;

/**
 * How long an answer is kept and trusted. Every query gets `standard` unless it names another
 * preset: the product caches what it reads for an hour, without retries (docs/web-app.md).
 */
export const freshness = {
  standard: { staleTime: HOUR, gcTime: HOUR },
  /**
   * Stripe calls a customer-portal session short-lived and asks for one when the person means to
   * use it, so a portal link is reused for five minutes only.
   */
  shortLived: { staleTime: 5 * MINUTE, gcTime: 5 * MINUTE },
  /** Single-use values (a sign-in nonce): never served from the cache, never kept. */
  singleUse: { staleTime: 0, gcTime: 0 },
  /** For one read that must reach the server even though the cached answer is still fresh. */
  fromServer: { staleTime: 0 },
  /**
   * What one page keeps track of while it shows (the wait after a purchase): forgotten as soon as
   * no page uses it, so that the next use starts afresh.
   */
  whileInUse: { gcTime: 0 },
} as const;

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { ...freshness.standard, retry: false, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
    mutationCache: new MutationCache({
      onMutate: (_variables, mutation) => {
        const texts = mutation.meta?.toasts;
        if (texts) startProgressToast(toastIdOf(mutation.mutationId), texts);
      },
      onSuccess: (data, _variables, _context, mutation) => {
        const texts = mutation.meta?.toasts;
        if (!texts) return;
        const id = toastIdOf(mutation.mutationId);
        if (mutation.meta?.isStepOnTheWay?.(data)) dismissProgressToast(id);
        else succeedProgressToast(id, texts);
      },
      onError: (error, _variables, _context, mutation) => {
        const id = toastIdOf(mutation.mutationId);
        if (mutation.meta?.showOnField?.(error)) {
          if (mutation.meta.toasts) dismissProgressToast(id);
          return;
        }
        if (mutation.meta?.toasts) failProgressToast(id, error.message);
      },
    }),
  });
}

function toastIdOf(mutationId: number): string {
  return `mutation-${mutationId}`;
}
