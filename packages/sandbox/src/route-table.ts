// The one small router the sandboxes share, so each reads as a table of its endpoints: a list of
// `{ method, path, handle }` rows (written `get(path, handle)`, `post(…)`, `del(…)`,
// `anyMethod(…)`), matched in order, the first match wins.
//
// A path is literal segments and `:name` parameters. A parameter takes letters, digits, `_` and
// `-` (what the providers' ids are made of) unless the route narrows it, as `:id(\d+)`. A path
// ending in `/*` takes that prefix and anything after it. `method: '*'` takes any method.
import type { IncomingMessage, ServerResponse } from 'node:http';

export type PathParams = Record<string, string>;

export interface Route<Handler> {
  method: 'GET' | 'POST' | 'DELETE' | '*';
  path: string;
  handle: Handler;
}

export interface RouteMatch<Handler> {
  handle: Handler;
  params: PathParams;
}

export type FindRoute<Handler> = (method: string, path: string) => RouteMatch<Handler> | undefined;

/** The table's rows, written short: `get('/v1/charges/:id', retrieveCharge)`. */
export const get = <Handler>(path: string, handle: Handler): Route<Handler> => ({
  method: 'GET',
  path,
  handle,
});
export const post = <Handler>(path: string, handle: Handler): Route<Handler> => ({
  method: 'POST',
  path,
  handle,
});
export const del = <Handler>(path: string, handle: Handler): Route<Handler> => ({
  method: 'DELETE',
  path,
  handle,
});
/** Any method: what a provider answers the same whatever the method. */
export const anyMethod = <Handler>(path: string, handle: Handler): Route<Handler> => ({
  method: '*',
  path,
  handle,
});

const DEFAULT_PARAM_PATTERN = '[\\w-]+';

function compilePath(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const segments = path.split('/').map((segment, index, all) => {
    if (segment === '*' && index === all.length - 1) return '.*';
    const param = /^:(\w+)(?:\((.+)\))?$/.exec(segment);
    if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    names.push(param[1]);
    return `(${param[2] ?? DEFAULT_PARAM_PATTERN})`;
  });
  return { pattern: new RegExp(`^${segments.join('/')}$`), names };
}

/** Compiles the table once; the finder answers the first route that takes the method and path. */
export function routeTable<Handler>(routes: Route<Handler>[]): FindRoute<Handler> {
  const compiled = routes.map((route) => ({ ...route, ...compilePath(route.path) }));
  return (method, path) => {
    for (const route of compiled) {
      if (route.method !== '*' && route.method !== method) continue;
      const found = route.pattern.exec(path);
      if (!found) continue;
      const params: PathParams = {};
      route.names.forEach((name, index) => {
        params[name] = found[index + 1] ?? '';
      });
      return { handle: route.handle, params };
    }
    return undefined;
  };
}

/** Reads a path parameter; a route only asks for the names its own path declares. */
export function paramReader(params: PathParams): (name: string) => string {
  return (name) => params[name] ?? '';
}

/** One request to a sandbox's pages: what a page handler is given. */
export interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  url: URL;
  /** A `:name` of the route's path, as the request gave it. */
  param: (name: string) => string;
}

export type PageHandler = (exchange: Exchange) => Promise<void> | void;

/**
 * A node:http request listener over a route table: `notFound` answers what no route takes, and
 * `failed` what a handler threw (each sandbox keeps its provider's own shapes for both).
 */
/**
 * Whether a Host names this machine: localhost, a name under it (browsers never ask DNS for
 * those), or a loopback address. A sandbox listens on loopback only, but a page of another site
 * whose name its owner points at 127.0.0.1 (DNS rebinding) still reaches it, same-origin to the
 * browser, and could press its buttons (pay, refund, ask Apple for a refund): only its Host
 * tells. No Host at all is no browser's request.
 */
export function namesThisMachine(host: string | undefined): boolean {
  if (host === undefined) return true;
  const name = (/^\[([^\]]+)\]/.exec(host)?.[1] ?? host.replace(/:\d*$/, '')).toLowerCase();
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)
  );
}

export function serveRoutes(
  findRoute: FindRoute<PageHandler>,
  notFound: PageHandler,
  failed: (response: ServerResponse, error: unknown) => void,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    if (!namesThisMachine(request.headers.host)) {
      sendText(response, 403, 'This sandbox answers only requests addressed to this machine.');
      return;
    }
    const url = new URL(request.url ?? '/', 'http://sandbox');
    const found = findRoute(request.method ?? 'GET', url.pathname);
    const handle = found?.handle ?? notFound;
    Promise.resolve()
      .then(() => handle({ request, response, url, param: paramReader(found?.params ?? {}) }))
      .catch((error: unknown) => failed(response, error));
  };
}

/** The plain answer of a path no route takes, and of a handler that failed. */
export function sendText(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'text/plain', ...headers });
  response.end(text);
}
