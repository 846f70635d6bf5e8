// Which methods a path answers, for the 405 of a wrong method (RFC 9110 §15.5.6: a 405 names
// them in `Allow`). Fastify's router answers a method it has no route for as it answers a path
// nobody serves, with the not-found handler; telling the two apart needs a router that knows every
// route. This one is a second find-my-way (the router Fastify itself uses), filled from the
// `onRoute` hook with every route as it is added, and built with the same options, so it matches
// a path, parameters included, as Fastify does. No route has to declare anything.
import fp from 'fastify-plugin';
import createRouter, { type HTTPMethod } from 'find-my-way';

declare module 'fastify' {
  interface FastifyInstance {
    /** The methods `path` (no query) is served with, sorted; empty when nobody serves it. */
    allowedMethods(path: string): string[];
    /**
     * Whether a route of `method` would serve `path` but for a parameter over the router's
     * limit: a 414, which a wildcard route (the web app's GET /*) would otherwise take first.
     */
    isOverParameterLimit(method: string, path: string): boolean;
  }
}

export interface AllowedMethodsOptions {
  /** Fastify's own router options that change what matches: the same here. */
  maxParamLength: number;
}

export const allowedMethodsPlugin = fp<AllowedMethodsOptions>(
  async function allowedMethodsPlugin(app, { maxParamLength }) {
    const router = createRouter({ maxParamLength });
    const withoutLimit = createRouter({ maxParamLength: Number.MAX_SAFE_INTEGER });
    const methods = new Set<HTTPMethod>();
    app.addHook('onRoute', function recordRoute(route) {
      // A wildcard (the web app's files, the API reference's assets) serves whatever exists
      // under it, which no router can know: a wrong method there stays a 404.
      if (route.url.includes('*')) return;
      for (const method of [route.method].flat() as HTTPMethod[]) {
        // Two routes of one method on one path cannot both exist: Fastify refuses the second.
        if (router.hasRoute(method, route.url)) continue;
        router.on(method, route.url, () => undefined);
        withoutLimit.on(method, route.url, () => undefined);
        methods.add(method);
      }
    });
    app.decorate('allowedMethods', function allowedMethods(path: string): string[] {
      const allowed = [...methods].filter((method) => router.find(method, path) !== null);
      // Fastify answers HEAD wherever it answers GET (exposeHeadRoutes), adding the route itself.
      if (allowed.includes('GET') && !allowed.includes('HEAD')) allowed.push('HEAD');
      return allowed.sort();
    });
    app.decorate('isOverParameterLimit', function isOverParameterLimit(method, path) {
      if (!methods.has(method as HTTPMethod)) return false;
      const route = method as HTTPMethod;
      return router.find(route, path) === null && withoutLimit.find(route, path) !== null;
    });
  },
  // Before any route: a route added earlier would be missing from it.
  { name: 'allowed-methods' },
);
