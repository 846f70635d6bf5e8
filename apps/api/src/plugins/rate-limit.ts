// Rate-limit counters: in this process's memory, or in Redis (REDIS_URL) so that every server
// process behind a load balancer shares them, falling back to memory while Redis is away (the
// log says when it goes and when it is back).
import fp from 'fastify-plugin';

import type { Config } from '../config';
import { deriveKey } from '../security/keys';
import {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  type RateLimiter,
} from '../security/rate-limiter';

declare module 'fastify' {
  interface FastifyInstance {
    rateLimiter: RateLimiter;
  }
}

export const rateLimitPlugin = fp<{
  config: Pick<Config, 'redisUrl' | 'redisKeyPrefix' | 'tokenSecret'>;
  /** How long a call waits on Redis before counting in this process; tests lengthen it. */
  redisWaitMs?: number;
}>(
  async function rateLimitPlugin(app, { config, redisWaitMs }) {
    const rateLimiter = config.redisUrl
      ? createRedisRateLimiter(
          config.redisUrl,
          `${config.redisKeyPrefix}:rate:`,
          // Names the counters, so no key in Redis shows an email or an address.
          deriveKey(config.tokenSecret, 'rate-limit-keys'),
          Date.now,
          app.log,
          redisWaitMs,
        )
      : createMemoryRateLimiter();
    app.decorate('rateLimiter', rateLimiter);
    app.addHook('onClose', async () => {
      await rateLimiter.close();
    });
  },
  { name: 'rate-limit' },
);
