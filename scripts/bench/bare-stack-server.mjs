// The reference production's memory is measured beside (issue 30, point 4): Fastify, a pg pool and
// an ioredis client, connected and idle, answering /api/health after one query of each, and
// nothing else. The same versions the product runs (resolved from the API's dependencies).
//
//   PORT=4801 DATABASE_URL=postgres://… REDIS_URL=redis://… node scripts/bench/bare-stack-server.mjs
import { createRequire } from 'node:module';

const require = createRequire(new URL('../../apps/api/package.json', import.meta.url));
const { default: Fastify } = await import(require.resolve('fastify'));
const { default: pg } = await import(require.resolve('pg'));
const { Redis } = await import(require.resolve('ioredis'));

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const redis = new Redis(process.env.REDIS_URL);
await pool.query('select 1');
await redis.ping();

const app = Fastify();
app.get('/api/health', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
