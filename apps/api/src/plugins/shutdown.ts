// A process on its way out, as a load balancer needs to see it (docs/deployment.md, Health
// and readiness).
// main.ts begins the shutdown on a signal; from then on /api/ready fails (the health module reads
// `app.shutdown`) and every answer closes its connection, while calls are still served until the
// drain period ends and the server closes.
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    shutdown: Shutdown;
  }
}

export interface Shutdown {
  /** True from the signal on. */
  readonly hasBegun: boolean;
  begin(): void;
}

export const shutdownPlugin = fp(
  async function shutdownPlugin(app) {
    let hasBegun = false;
    app.decorate('shutdown', {
      get hasBegun() {
        return hasBegun;
      },
      begin() {
        hasBegun = true;
      },
    });
    // A balancer keeps connections open and reuses them. Closed after each answer, none is left
    // idle when the drain ends, so none can be closed under a request the balancer is sending;
    // and a request still in flight when the server closes leaves no connection to wait on (Node
    // closes idle connections once, at close, and would otherwise wait out the keep-alive).
    app.addHook('onSend', async (_request, reply) => {
      if (hasBegun) void reply.header('connection', 'close');
    });
  },
  { name: 'shutdown' },
);
