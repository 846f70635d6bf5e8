import { AUTH_PATH_PREFIX, apiPaths, type ErrorBody, type TokenPair } from '@kegel/contract';

import { isTokenExpired, type TokenStore } from './token-store';

/**
 * The one HTTP client of the web app:
 * - every request carries the access token as a bearer header;
 * - before a request whose access token has expired while the refresh token is still valid, both
 *   are renewed, once even when several requests need it (single flight); never before a call to
 *   an /auth path; a failed renewal removes both tokens;
 * - a 401 calls `onUnauthorized` (the app decides, by the current page, whether to go to login);
 * - errors become `ApiError`, whose message is the server's, arrays joined by newlines.
 * No UI in here: toasts and navigation belong to the app.
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const NETWORK_ERROR_MESSAGE =
  'Could not reach the server. Check your connection and try again.';
const UNKNOWN_ERROR_MESSAGE = 'Something went wrong. Please try again.';

type QueryValue = string | number | boolean | Array<string | number | boolean> | undefined;

export interface RequestOptions {
  body?: unknown;
  /** GET parameters; array values repeat the key (`?id=1&id=2`). */
  query?: Record<string, QueryValue>;
  signal?: AbortSignal;
}

export interface ApiClient {
  request<T>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    options?: RequestOptions,
  ): Promise<T>;
  get<T>(path: string, options?: RequestOptions): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
}

export interface ApiClientOptions {
  baseUrl: string;
  tokens: TokenStore;
  onUnauthorized: () => void;
  fetch?: typeof fetch;
  now?: () => number;
}

export function joinErrorMessage(message: string | string[]): string {
  return Array.isArray(message) ? message.join('\n') : message;
}

function buildUrl(baseUrl: string, path: string, query?: Record<string, QueryValue>): string {
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

function isTokenPair(value: unknown): value is TokenPair {
  const pair = value as Partial<TokenPair> | null;
  return typeof pair?.accessToken === 'string' && typeof pair.refreshToken === 'string';
}

async function errorFrom(response: Response): Promise<ApiError> {
  try {
    const body: unknown = await response.json();
    if (isErrorBody(body)) return new ApiError(response.status, joinErrorMessage(body.message));
  } catch {
    // Not JSON (a proxy's error page): fall through to the generic message.
  }
  return new ApiError(response.status, UNKNOWN_ERROR_MESSAGE);
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  const now = options.now ?? Date.now;
  let refreshInFlight: Promise<void> | null = null;

  async function renewTokens(refreshToken: string): Promise<void> {
    try {
      const response = await fetchImpl(`${options.baseUrl}${apiPaths.refresh}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${refreshToken}` },
        body: JSON.stringify({ refreshToken }),
      });
      const pair: unknown = response.ok ? await response.json() : undefined;
      if (isTokenPair(pair)) options.tokens.write(pair);
      else options.tokens.clear();
    } catch {
      // The network failed, not the token: keep it for the next attempt.
    }
  }

  /** Renews the pair when the access token has expired; one renewal at a time. */
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
    await refreshInFlight;
  }

  async function request<T>(
    method: string,
    path: string,
    requestOptions: RequestOptions = {},
  ): Promise<T> {
    if (!path.startsWith(AUTH_PATH_PREFIX)) await ensureFreshTokens();
    const accessToken = options.tokens.read()?.accessToken;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (accessToken) headers.authorization = `Bearer ${accessToken}`;
    if (requestOptions.body !== undefined) headers['content-type'] = 'application/json';

    let response: Response;
    try {
      response = await fetchImpl(buildUrl(options.baseUrl, path, requestOptions.query), {
        method,
        headers,
        body: requestOptions.body === undefined ? undefined : JSON.stringify(requestOptions.body),
        signal: requestOptions.signal,
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new ApiError(0, NETWORK_ERROR_MESSAGE);
    }
    if (response.status === 401) options.onUnauthorized();
    if (!response.ok) throw await errorFrom(response);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  return {
    request,
    get: (path, requestOptions) => request('GET', path, requestOptions),
    post: (path, body) => request('POST', path, { body }),
  };
}
