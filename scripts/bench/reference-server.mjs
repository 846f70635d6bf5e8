// The reference the product is measured against (npm run bench): the same libraries in the same
// shape, and nothing else. Fastify 5, an HS256 access token checked with jose (issuer, audience,
// typ), one primary-key select of the member's row, the profile answered as JSON. No sessions,
// no logging, no plugins. It reads the TOKEN_SECRET the product uses and derives the same access
// key (apps/api/src/security/keys.ts), so one token is valid on both.
//
//   REFERENCE_PORT=4701 TOKEN_SECRET=… [DATABASE_URL=postgres://…] node scripts/bench/reference-server.mjs
//
// On PGlite it opens its own fresh database with a copy of the member's row (REFERENCE_MEMBER,
// JSON); on PostgreSQL it reads the product's users table.
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

// Resolved from the API's own dependencies: the very versions the product runs.
const require = createRequire(new URL('../../apps/api/package.json', import.meta.url));
const { default: Fastify } = await import(require.resolve('fastify'));
const { jwtVerify } = await import(require.resolve('jose'));

const secret = process.env.TOKEN_SECRET;
if (!secret) throw new Error('TOKEN_SECRET is required');
const accessKey = await crypto.subtle.importKey(
  'raw',
  createHmac('sha256', secret).update('kegel-coach:access-token').digest(),
  { name: 'HMAC', hash: 'SHA-256' },
  false,
  ['verify'],
);
const PROFILE_SQL =
  'select id, email, subscription_end_date, password_hash is not null as has_password from users where id = $1';

let query;
if (process.env.DATABASE_URL) {
  const { default: pg } = await import(require.resolve('pg'));
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  query = async (id) => (await pool.query(PROFILE_SQL, [id])).rows[0];
} else {
  const { PGlite } = await import(require.resolve('@electric-sql/pglite'));
  // initdb in a child, as the product does (src/db/pglite-init.ts): in-process it would hold
  // some 400 MB more for the life of the server, and the reference is measured idle.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kegel-reference-'));
  const initialised = spawnSync(process.execPath, [
    '--eval',
    'require(process.argv[1]).PGlite.create(process.argv[2]).then((db) => db.close())',
    require.resolve('@electric-sql/pglite'),
    dataDir,
  ]);
  if (initialised.status !== 0) throw new Error(`initdb failed: ${initialised.stderr}`);
  const db = new PGlite(dataDir);
  await db.exec(`create table users (id uuid primary key, email text not null,
    password_hash text, subscription_end_date timestamptz)`);
  const member = JSON.parse(process.env.REFERENCE_MEMBER ?? '{}');
  await db.query('insert into users (id, email, password_hash) values ($1, $2, $3)', [
    member.id,
    member.email,
    'x',
  ]);
  query = async (id) => (await db.query(PROFILE_SQL, [id])).rows[0];
}

const app = Fastify();
app.get('/api/users/profile', async (request, reply) => {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!match) return reply.code(401).send({ message: 'Please sign in' });
  let payload;
  try {
    ({ payload } = await jwtVerify(match[1], accessKey, {
      algorithms: ['HS256'],
      issuer: 'kegel-coach',
      audience: 'kegel-coach:access',
    }));
  } catch {
    return reply.code(401).send({ message: 'Please sign in' });
  }
  if (payload.typ !== 'access') return reply.code(401).send({ message: 'Please sign in' });
  const row = await query(payload.sub);
  if (!row) return reply.code(401).send({ message: 'Please sign in' });
  return {
    id: row.id,
    email: row.email,
    subscriptionEndDate: row.subscription_end_date?.toISOString() ?? null,
    hasPassword: row.has_password,
  };
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.REFERENCE_PORT ?? 4701) });
process.send?.('ready');
