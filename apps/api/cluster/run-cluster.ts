// `npm run cluster`: builds what is not built yet, then runs two server processes on one
// PostgreSQL database and one Redis behind HAProxy (start-cluster.ts) until Ctrl+C, printing where
// everything is and each mail the capture receives. docs/deployment.md, Several
// processes behind HAProxy.
//
// Settings (all optional): DATABASE_URL (created if it does not exist), REDIS_URL, CLUSTER_PORT
// (the balancer's port, 8080), SMTP_URL (a mail server instead of the capture), REDIS_KEY_PREFIX.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

import pg from 'pg';

import { type Cluster, REPOSITORY_ROOT, startCluster } from './start-cluster';

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/kegel_cluster';
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** Creates the database of `url` on its server if it is not there yet. */
async function ensureDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return;
  } catch (error) {
    // 3D000: invalid_catalog_name, the database does not exist. Anything else is for the server
    // process to report.
    if ((error as { code?: string }).code !== '3D000') return;
  } finally {
    await client.end().catch(() => {});
  }
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const server = new URL(url);
  server.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
  try {
    await admin.query(`create database "${name.replaceAll('"', '""')}"`);
    console.log(`cluster: created database ${name}`);
  } finally {
    await admin.end();
  }
}

function printMailAsItArrives(cluster: Cluster): void {
  const inbox = cluster.inbox;
  if (!inbox) return;
  let lastId = 0;
  setInterval(() => {
    for (const email of inbox.messages()) {
      if (email.id <= lastId) continue;
      lastId = email.id;
      console.log(
        `\ncluster: mail to ${email.to.join(', ')}: ${email.subject}\n${email.text.trim()}\n`,
      );
    }
  }, 1_000).unref();
}

async function main(): Promise<void> {
  const build = spawnSync(
    process.execPath,
    [path.join(REPOSITORY_ROOT, 'scripts/start.mjs'), '--build-only'],
    {
      cwd: REPOSITORY_ROOT,
      stdio: 'inherit',
    },
  );
  if (build.status !== 0) process.exit(build.status ?? 1);

  const databaseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  await ensureDatabase(databaseUrl);
  console.log('cluster: starting two server processes and HAProxy...');
  const cluster = await startCluster({
    databaseUrl,
    redisUrl: process.env.REDIS_URL || DEFAULT_REDIS_URL,
    port: Number(process.env.CLUSTER_PORT || 8080),
    smtpUrl: process.env.SMTP_URL || undefined,
    redisKeyPrefix: process.env.REDIS_KEY_PREFIX || undefined,
  });

  console.log(`
Kegel Coach cluster is running at ${cluster.publicUrl} (HAProxy, round robin)
  ${cluster.processes.map((each) => `${each.name}: pid ${each.pid}, ${each.url}, log ${each.logFile}`).join('\n  ')}
  balancer log: ${cluster.haproxyLogFile}
  Stripe sandbox: ${cluster.stripe.baseUrl} (test card 4242 4242 4242 4242)
  mail: ${cluster.inbox ? 'printed here as it arrives' : 'to SMTP_URL'}
  TRUST_PROXY=${cluster.trustProxy}; each answer names its process in X-Served-By.
  Metrics of a process: curl ${cluster.processes[0]?.url}/metrics
Stop with Ctrl+C.
`);
  printMailAsItArrives(cluster);

  let closing = false;
  async function stop(code: number): Promise<never> {
    if (!closing) {
      closing = true;
      await cluster.close({ removeDirectory: false });
      console.log(`cluster: stopped; logs kept in ${cluster.directory}`);
    }
    process.exit(code);
  }
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  for (const each of cluster.processes) {
    void each.exited.then(({ code, signal }) => {
      if (closing) return;
      console.log(
        `cluster: ${each.name} (pid ${each.pid}) ended (${signal ?? `exit code ${code}`}); HAProxy sends everything to the other`,
      );
      if (cluster.processes.every((other) => !other.isRunning())) void stop(1);
    });
  }
}

await main().catch((error: unknown) => {
  console.error(`cluster: ${(error as Error).message}`);
  process.exit(1);
});
