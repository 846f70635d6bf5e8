// The one HTTP client of the web app, typed by the contract's call objects:
// - every request carries the access token as a bearer header;
// - before a request whose access token has expired while the refresh token is still valid, both
//   are renewed, once even when several requests need it (single flight); never before a call to
//   an /auth path; a failed renewal removes both tokens;
// - a 401 calls `onUnauthorized` (the app decides, by the current page, whether to go to login);
// - errors become `ApiError`, whose message is the server's, arrays joined by newlines.
// No UI in here: toasts and navigation belong to the app. The README's Product rules give the
// rules this follows.
import {
  AUTH_PATH_PREFIX,
  apiRoutes,
  type EndpointName,
  type Endpoints,
  type ErrorBody,
  pathTo,
  type RequestOf,
  type ResponseOf,
  type TokenPair,
} from '@kegel/contract';

import { isTokenExpired, type TokenStore } from './token-store';

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
  fetch?: typeof fetch;
  now?: () => number;
}

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
      const response = await fetchImpl(`${options.baseUrl}${apiRoutes.refresh.path}`, {
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

  async function send(
    method: string,
    path: string,
    input: { body?: unknown; query?: Record<string, QueryValue>; signal?: AbortSignal },
  ): Promise<unknown> {
    if (!path.startsWith(AUTH_PATH_PREFIX)) await ensureFreshTokens();
    const accessToken = options.tokens.read()?.accessToken;
    const headers: Record<string, string> = { accept: 'application/json' };
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
      throw new ApiError(0, NETWORK_ERROR_MESSAGE);
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
