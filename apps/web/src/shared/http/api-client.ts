// The one HTTP client of the web app, typed by the contract's call objects:
// - every request carries the access token as a bearer header;
// - before a request whose access token has expired while the refresh token is still valid, both
//   are renewed, once even when several requests need it (single flight); never before a call to
//   an /auth path. Only a 401 from the renewal removes both tokens; a network error, a 429 or a
//   5xx keeps them and is retried (Retry-After honoured), and if it keeps failing the requests
//   that waited fail with a clear message and `onRenewalFailed` is told once;
// - a 401 calls `onUnauthorized` (the app decides, by the current page, whether to go to login);
// - errors become `ApiError`, whose message is the server's, arrays joined by newlines, and
//   whose `fields` are the server's (each validation message with the field it is about).
// No UI in here: toasts and navigation belong to the app. The README's Product rules give the
// rules this follows.
import {
  AUTH_PATH_PREFIX,
  apiRoutes,
  type EndpointName,
  type Endpoints,
  type ErrorBody,
  type FieldProblem,
  pathTo,
  type RequestOf,
  type ResponseOf,
  type TokenPair,
} from '@kegel/contract';

// The client's own messages are the `common` namespace's (registered by importing its texts).
import { useCommonText } from '../i18n/common-text';
import { currentLocale } from '../i18n/i18n';
import { isTokenExpired, type TokenStore } from './token-store';

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    /** A validation error's problems, each with its field (`useContractForm` shows them there). */
    readonly fields: readonly FieldProblem[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

// The client's own messages, in English (the catalog's `common` texts: what the tests compare
// with). A person reads them in the page's language, looked up when the error is made.
export const NETWORK_ERROR_MESSAGE =
  'Could not reach the server. Check your connection and try again.';
export const RENEWAL_FAILED_MESSAGE =
  'The server is busy and could not renew your session. You are still signed in: please try again in a moment.';

const networkError = (): ApiError => new ApiError(0, useCommonText.now('networkError'));

type QueryValue = string | number | boolean | Array<string | number | boolean> | undefined;

export interface CallOptions {
  signal?: AbortSignal;
}

/**
 * What a call takes: its path parameters, query and body as the contract describes them (none
 * for a call without input), and an abort signal.
 */
export type CallArguments<N extends EndpointName> = keyof RequestOf<Endpoints[N]> extends never
  ? [request?: CallOptions]
  : [request: RequestOf<Endpoints[N]> & CallOptions];

export interface ApiClient {
  /** Makes the contract's call `name`; resolves with its success body, typed by the contract. */
  call<N extends EndpointName>(
    name: N,
    ...request: CallArguments<N>
  ): Promise<ResponseOf<Endpoints[N]>>;
}

export interface ApiClientOptions {
  baseUrl: string;
  tokens: TokenStore;
  onUnauthorized: () => void;
  /** A renewal kept failing (the tokens stay): the app tells the person, once per renewal. */
  onRenewalFailed?: (message: string) => void;
  fetch?: typeof fetch;
  now?: () => number;
}

/** Tries of one renewal, and the longest wait between two (a later Retry-After fails at once). */
const RENEWAL_ATTEMPTS = 3;
const LONGEST_RENEWAL_WAIT_MS = 10_000;
/**
 * Waits without a Retry-After: 1 s, then 2 s. Kept short on purpose: a renewal whose answer was
 * lost may have rotated the token, and the server gives the same successor to the old token only
 * within 10 seconds (docs/api.md, Tokens).
 */
const RENEWAL_BACKOFF_MS = [1_000, 2_000];

/** Retry-After in milliseconds (seconds or an HTTP date), or undefined without a usable one. */
export function retryAfterMs(header: string | null, nowMs: number): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Answers worth another try: the server may take the same token in a moment. */
function isTransient(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** `renewed`: the stored pair is the one to use now (this renewal's, or another tab's). */
type RenewalOutcome =
  { kind: 'renewed' } | { kind: 'refused' } | { kind: 'failed'; error: ApiError };

export function joinErrorMessage(message: string | string[]): string {
  return Array.isArray(message) ? message.join('\n') : message;
}

/** GET parameters go in the query string; array values repeat the key. */
export function buildUrl(
  baseUrl: string,
  path: string,
  query?: Record<string, QueryValue>,
): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
  }
  const queryString = search.toString();
  return `${baseUrl}${path}${queryString ? `?${queryString}` : ''}`;
}

// Checked by hand rather than with the contract's zod schemas: this file is on the first page's
// critical path, and zod loads later, with the forms.
function isErrorBody(value: unknown): value is ErrorBody {
  const message = (value as Partial<ErrorBody> | null)?.message;
  return (
    typeof message === 'string' ||
    (Array.isArray(message) && message.every((item) => typeof item === 'string'))
  );
}

function isFieldProblems(value: unknown): value is FieldProblem[] {
  return (
    Array.isArray(value) &&
    value.every(
      (item: Partial<FieldProblem> | null) =>
        typeof item?.field === 'string' && typeof item.message === 'string',
    )
  );
}

function isTokenPair(value: unknown): value is TokenPair {
  const pair = value as Partial<TokenPair> | null;
  return typeof pair?.accessToken === 'string' && typeof pair.refreshToken === 'string';
}

async function errorFrom(response: Response): Promise<ApiError> {
  try {
    const body: unknown = await response.json();
    if (isErrorBody(body)) {
      const fields = isFieldProblems(body.fields) ? body.fields : [];
      return new ApiError(response.status, joinErrorMessage(body.message), fields);
    }
  } catch {
    // Not JSON (a proxy's error page): fall through to the generic message.
  }
  return new ApiError(response.status, useCommonText.now('unknownError'));
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  // Read at each call: the development clock may replace the global Date (dev-clock.ts).
  const now = options.now ?? (() => Date.now());
  let refreshInFlight: Promise<RenewalOutcome> | null = null;

  /** One try of a renewal: its outcome, or `again` with the server's Retry-After (0: none). */
  async function tryRenewal(
    refreshToken: string,
  ): Promise<RenewalOutcome | { kind: 'again'; error: ApiError; retryAfterMs: number }> {
    let response: Response;
    try {
      response = await fetchImpl(`${options.baseUrl}${apiRoutes.refresh.path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${refreshToken}`,
          'accept-language': currentLocale(),
        },
        body: JSON.stringify({ refreshToken }),
      });
    } catch {
      // The network failed, not the token.
      return { kind: 'again', error: networkError(), retryAfterMs: 0 };
    }
    if (response.status === 401) return { kind: 'refused' };
    const pair: unknown = response.ok ? await response.json().catch(() => undefined) : undefined;
    if (isTokenPair(pair)) {
      options.tokens.write(pair);
      return { kind: 'renewed' };
    }
    const error = new ApiError(
      response.ok ? 502 : response.status,
      useCommonText.now('sessionRenewalFailed'),
    );
    if (!isTransient(response.status)) return { kind: 'failed', error };
    const waitMs = retryAfterMs(response.headers.get('retry-after'), now()) ?? 0;
    // Asked to wait longer than anyone waits for a page: fail now, the next request tries again.
    if (waitMs > LONGEST_RENEWAL_WAIT_MS) return { kind: 'failed', error };
    return { kind: 'again', error, retryAfterMs: waitMs };
  }

  /**
   * Renews the pair; only the server's refusal of the refresh token (401) removes both (README,
   * Product rules: Token renewal).
   */
  async function renewTokens(refreshToken: string): Promise<RenewalOutcome> {
    let outcome: RenewalOutcome = { kind: 'refused' };
    for (let attempt = 1; attempt <= RENEWAL_ATTEMPTS; attempt += 1) {
      const tried = await tryRenewal(refreshToken);
      if (tried.kind !== 'again') {
        outcome = tried;
        break;
      }
      outcome = { kind: 'failed', error: tried.error };
      if (attempt === RENEWAL_ATTEMPTS) break;
      // Never sooner than the server asked, nor than the backoff.
      const backoff = RENEWAL_BACKOFF_MS[attempt - 1] ?? LONGEST_RENEWAL_WAIT_MS;
      await new Promise((resolve) => setTimeout(resolve, Math.max(tried.retryAfterMs, backoff)));
      // Another tab renewed (or signed out) meanwhile: its tokens are the ones to use, and
      // presenting this spent refresh token again could end the session.
      if (options.tokens.read()?.refreshToken !== refreshToken) return { kind: 'renewed' };
    }
    if (outcome.kind === 'refused') options.tokens.clear();
    if (outcome.kind === 'failed') options.onRenewalFailed?.(outcome.error.message);
    return outcome;
  }

  /**
   * Renews the pair when the access token has expired; one renewal at a time. Throws when the
   * renewal kept failing: the request would only meet a 401 with the expired token.
   */
  async function ensureFreshTokens(): Promise<void> {
    const pair = options.tokens.read();
    if (!pair || !isTokenExpired(pair.accessToken, now())) return;
    if (isTokenExpired(pair.refreshToken, now())) {
      options.tokens.clear();
      return;
    }
    refreshInFlight ??= renewTokens(pair.refreshToken).finally(() => {
      refreshInFlight = null;
    });
    const outcome = await refreshInFlight;
    if (outcome.kind === 'failed') throw outcome.error;
  }

  async function send(
    method: string,
    path: string,
    input: { body?: unknown; query?: Record<string, QueryValue>; signal?: AbortSignal },
  ): Promise<unknown> {
    if (!path.startsWith(AUTH_PATH_PREFIX)) await ensureFreshTokens();
    const accessToken = options.tokens.read()?.accessToken;
    // The server answers its messages in the page's language (README, Languages).
    const headers: Record<string, string> = {
      accept: 'application/json',
      'accept-language': currentLocale(),
    };
    if (accessToken) headers.authorization = `Bearer ${accessToken}`;
    if (input.body !== undefined) headers['content-type'] = 'application/json';

    let response: Response;
    try {
      response = await fetchImpl(buildUrl(options.baseUrl, path, input.query), {
        method,
        headers,
        body: input.body === undefined ? undefined : JSON.stringify(input.body),
        signal: input.signal,
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw networkError();
    }
    if (response.status === 401) options.onUnauthorized();
    if (!response.ok) throw await errorFrom(response);
    if (response.status === 204) return undefined;
    return response.json();
  }

  return {
    async call<N extends EndpointName>(name: N, ...[request]: CallArguments<N>) {
      const route = apiRoutes[name];
      const input = (request ?? {}) as CallOptions & {
        params?: Record<string, string>;
        query?: Record<string, QueryValue>;
        body?: unknown;
      };
      const body = await send(route.method, pathTo(route, input.params), input);
      // The one place the wire meets the types: the server serialises every success with the
      // same contract schema, so its body is this call's response.
      return body as ResponseOf<Endpoints[N]>;
    },
  };
}
