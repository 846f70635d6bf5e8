// A stand-in for the API server in Vitest. The app's HTTP client (createApiClient) is given this
// `fetch` instead of the browser's (setup.ts), so pages run their real calls, token handling and
// error messages, while each test says what the server answers. Every request is kept, so a
// test can check what was sent, and that nothing was.
import { type ApiRouteName, apiRoutes, type ErrorBody } from '@kegel/contract';

export interface RecordedRequest {
  method: string;
  /** The API path, without the base URL: `/auth/local/login/email`. */
  path: string;
  /** The query string's parameters: `query.get('cursor')`. */
  query: URLSearchParams;
  body: unknown;
  headers: Headers;
}

export interface FakeReply {
  status?: number;
  body?: unknown;
  /** Beside the JSON content type: `{ 'retry-after': '60' }`. */
  headers?: Record<string, string>;
}

type Answer = FakeReply | ((request: RecordedRequest) => FakeReply | Promise<FakeReply>);

/** The server's error shape: `{ statusCode, error, message }`. */
export function errorReply(status: number, message: ErrorBody['message']): FakeReply {
  return { status, body: { statusCode: status, error: 'Error', message } };
}

const API_PREFIX = '/api';

class FakeApi {
  private readonly answers = new Map<string, Answer>();
  readonly requests: RecordedRequest[] = [];

  constructor() {
    this.reset();
  }

  /** What the server answers to the contract's call `name` from now on. */
  on(name: ApiRouteName, answer: Answer): void {
    this.answers.set(name, answer);
  }

  /** What the page sent to the call `name`, oldest first. */
  requestsTo(name: ApiRouteName): RecordedRequest[] {
    return this.requests.filter((request) => routeNameOf(request) === name);
  }

  reset(): void {
    this.answers.clear();
    this.requests.length = 0;
    // Login and register ask which social providers exist; by default, none.
    this.on('listSocialProviders', { body: { google: null, apple: null } });
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input), 'http://localhost');
    const path = url.pathname.startsWith(API_PREFIX)
      ? url.pathname.slice(API_PREFIX.length)
      : url.pathname;
    const method = init?.method ?? 'GET';
    const request: RecordedRequest = {
      method,
      path,
      query: url.searchParams,
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
      headers: new Headers(init?.headers),
    };
    this.requests.push(request);
    const name = routeNameOf(request);
    const answer = name && this.answers.get(name);
    const reply =
      typeof answer === 'function'
        ? await answer(request)
        : (answer ?? errorReply(404, `The fake API has no answer for ${method} ${path}`));
    return new Response(reply.body === undefined ? null : JSON.stringify(reply.body), {
      status: reply.status ?? 200,
      headers: { 'content-type': 'application/json', ...reply.headers },
    });
  };
}

/** The contract's call a request was made to (path parameters match any segment). */
function routeNameOf(request: RecordedRequest): ApiRouteName | undefined {
  return (Object.keys(apiRoutes) as ApiRouteName[]).find((name) => {
    const route = apiRoutes[name];
    const pattern = new RegExp(`^${route.path.replace(/:\w+/g, '[^/]+')}$`);
    return route.method === request.method && pattern.test(request.path);
  });
}

export const fakeApi = new FakeApi();
