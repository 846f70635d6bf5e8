// The production topology on one machine: two built server processes on one PostgreSQL database
// and one Redis, behind HAProxy (Debian's package) with deploy/haproxy.cfg, the file compose.yaml
// uses too. `npm run cluster` runs it for a person (run-cluster.ts); the cluster test drives it.
//
// What the processes share, as production would: TOKEN_SECRET (a token signed by one is checked
// by the other), STRIPE_WEBHOOK_SECRET, PUBLIC_URL (the balancer's address), one mail server (a
// local SMTP capture unless one is given) and one Stripe: a single Stripe sandbox in this process,
// reached through STRIPE_API_URL, whose webhooks come back through the balancer to either
// process. Each process in sandbox mode would otherwise have its own Stripe in its own memory.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  constants,
  createWriteStream,
  mkdtempSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { type SmtpInbox, startSmtpInbox } from '@kegel/sandbox/smtp-inbox';
import { startStripeSandbox, type StripeSandbox } from '@kegel/sandbox/stripe-sandbox';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVER_ENTRY = path.join(REPOSITORY_ROOT, 'apps/api/dist/main.js');
const WEB_APP_INDEX = path.join(REPOSITORY_ROOT, 'apps/web/dist/index.html');
export const HAPROXY_CONFIG_TEMPLATE = path.join(REPOSITORY_ROOT, 'deploy/haproxy.cfg');
const WEBHOOK_PATH = '/api/payments/stripe/webhook';

/** The names deploy/haproxy.cfg gives the two processes. */
const PROCESS_NAMES = ['app1', 'app2'] as const;
export type ProcessName = (typeof PROCESS_NAMES)[number];

export class ClusterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClusterError';
  }
}

export interface ClusterOptions {
  /** The PostgreSQL database both processes use. */
  databaseUrl: string;
  /** The Redis both processes count their limits in. */
  redisUrl: string;
  /** The balancer's port on loopback; 0 (the default) takes a free one. */
  port?: number;
  /** Where mail goes; without it, one SMTP capture in this process takes every mail. */
  smtpUrl?: string;
  /** Namespaces this cluster's Redis keys. */
  redisKeyPrefix?: string;
  /** More settings for both processes (LOG_LEVEL, limits ...). */
  env?: Record<string, string>;
  /** Where logs and the written HAProxy configuration go; a fresh temporary directory if not. */
  directory?: string;
  /** The HAProxy program; found on PATH and in /usr/sbin if not given. */
  haproxyPath?: string;
}

export interface ClusterProcess {
  name: ProcessName;
  pid: number;
  port: number;
  /** The process itself, not through the balancer. */
  url: string;
  /** Its JSON log lines (pino). */
  logFile: string;
  isRunning(): boolean;
  /** Resolves when the process has ended, however it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface Cluster {
  /** The balancer: what clients use. */
  url: string;
  /** PUBLIC_URL of the processes: the balancer, as a person's browser names it. */
  publicUrl: string;
  directory: string;
  processes: ClusterProcess[];
  haproxyLogFile: string;
  stripe: StripeSandbox;
  /** The shared mail capture, unless `smtpUrl` was given. */
  inbox: SmtpInbox | undefined;
  tokenSecret: string;
  webhookSecret: string;
  /** The TRUST_PROXY value the processes were given. */
  trustProxy: string;
  /**
   * Stops one process with a signal (SIGTERM: as an orchestrator does, draining first) and
   * resolves with how it ended. Its entry in `processes` stays until `startProcess`.
   */
  stopProcess(
    name: ProcessName,
    signal?: NodeJS.Signals,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Starts a stopped process again on its port with its settings, as a restart does, and
   * resolves once the balancer passes requests to it; it replaces the entry in `processes`.
   */
  startProcess(name: ProcessName): Promise<ClusterProcess>;
  /** Ends the balancer, the processes, the sandbox and the capture; removes the directory if asked. */
  close(options?: { removeDirectory?: boolean }): Promise<void>;
}

/** A free TCP port on loopback, as the system hands them out. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function findHaproxy(given: string | undefined): string {
  const candidates = given
    ? [given]
    : [
        ...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean),
        '/usr/sbin',
        '/usr/local/sbin',
      ].map((directory) => path.join(directory, 'haproxy'));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not this one.
    }
  }
  throw new ClusterError(
    'HAProxy is not installed: on Debian, apt-get install haproxy (the cluster runs it as its load balancer)',
  );
}

/** Whether a cluster can run here: the built server and web app, and HAProxy. */
export function clusterPrerequisites(haproxyPath?: string): string[] {
  const missing: string[] = [];
  try {
    findHaproxy(haproxyPath);
  } catch (error) {
    missing.push((error as Error).message);
  }
  for (const file of [SERVER_ENTRY, WEB_APP_INDEX]) {
    try {
      accessSync(file, constants.R_OK);
    } catch {
      missing.push(
        `${path.relative(REPOSITORY_ROOT, file)} is not built: node scripts/start.mjs --build-only`,
      );
    }
  }
  return missing;
}

/**
 * deploy/haproxy.cfg with the given ${NAME} values written in. Names left out stay for HAProxy to
 * read from its environment (DNS_RESOLVER, which only containers set, guards its own block).
 */
export function renderHaproxyConfig(values: Record<string, string>): string {
  return readFileSync(HAPROXY_CONFIG_TEMPLATE, 'utf8').replace(
    /"\$\{(\w+)\}"/g,
    (whole, name: string) => values[name] ?? whole,
  );
}

/** One GET on its own connection: status and headers, or undefined when nothing answers. */
function probe(
  url: string,
  timeoutMs = 2_000,
): Promise<{ status: number; servedBy?: string } | undefined> {
  return new Promise((resolve) => {
    const outgoing = httpRequest(url, { agent: false, timeout: timeoutMs }, (response) => {
      response.resume();
      const servedBy = response.headers['x-served-by'];
      resolve({
        status: response.statusCode ?? 0,
        servedBy: typeof servedBy === 'string' ? servedBy : undefined,
      });
    });
    outgoing.on('timeout', () => outgoing.destroy());
    outgoing.on('error', () => resolve(undefined));
    outgoing.end();
  });
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function exitOf(
  child: ChildProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

function startChild(
  command: string,
  args: string[],
  env: Record<string, string>,
  logFile: string,
): ChildProcess {
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(command, args, {
    cwd: REPOSITORY_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  child.once('exit', () => setTimeout(() => log.end(), 100));
  return child;
}

async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  failed?: () => string | undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const failure = failed?.();
    if (failure) throw new ClusterError(failure);
    if (await check()) return;
    if (Date.now() > deadline)
      throw new ClusterError(`${what}: not within ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const missing = clusterPrerequisites(options.haproxyPath);
  if (missing.length > 0) throw new ClusterError(missing.join('\n'));
  const haproxyPath = findHaproxy(options.haproxyPath);
  const directory = options.directory ?? mkdtempSync(path.join(tmpdir(), 'kegel-cluster-'));
  const children: ChildProcess[] = [];
  // Whatever happens to this process, the ones it started do not outlive it.
  const killChildren = () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killChildren);

  let stripe: StripeSandbox | undefined;
  let inbox: SmtpInbox | undefined;
  try {
    const port = options.port || (await freePort());
    const url = `http://127.0.0.1:${port}`;
    const publicUrl = `http://localhost:${port}`;
    const tokenSecret = randomBytes(48).toString('base64url');
    const webhookSecret = `whsec_${randomBytes(24).toString('base64url')}`;
    // One proxy hop: HAProxy, which also drops whatever X-Forwarded-For the client sent.
    const trustProxy = '1';

    // One Stripe for every process; Stripe delivers to the public address, so to the balancer.
    stripe = await startStripeSandbox({ webhookSecret, webhookUrl: `${url}${WEBHOOK_PATH}` });
    if (!options.smtpUrl) inbox = await startSmtpInbox({ capacity: 5_000 });
    const smtpUrl = options.smtpUrl ?? inbox?.url ?? '';
    const sandboxPort = stripe.port;

    const processEnv = (name: ProcessName, processPort: number): Record<string, string> => ({
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(processPort),
      PUBLIC_URL: publicUrl,
      DATA_DIR: path.join(directory, name),
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: options.redisUrl,
      REDIS_KEY_PREFIX: options.redisKeyPrefix ?? 'kegel-cluster',
      TOKEN_SECRET: tokenSecret,
      STRIPE_SECRET_KEY: 'sk_test_cluster_sandbox',
      STRIPE_API_URL: `http://127.0.0.1:${sandboxPort}`,
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      SMTP_URL: smtpUrl,
      // The local capture speaks plain SMTP on loopback; a real server gets TLS.
      ...(options.smtpUrl ? {} : { SMTP_ALLOW_INSECURE: 'true' }),
      TRUST_PROXY: trustProxy,
      ...options.env,
    });
    const childOf = new Map<ProcessName, ChildProcess>();
    /** Starts one server process; its log goes on in the same file across restarts. */
    const launch = (name: ProcessName, processPort: number): ClusterProcess => {
      const logFile = path.join(directory, `${name}.log`);
      const child = startChild(
        process.execPath,
        ['--enable-source-maps', SERVER_ENTRY],
        processEnv(name, processPort),
        logFile,
      );
      children.push(child);
      childOf.set(name, child);
      return {
        name,
        pid: child.pid ?? 0,
        port: processPort,
        url: `http://127.0.0.1:${processPort}`,
        logFile,
        isRunning: () => child.exitCode === null && child.signalCode === null,
        exited: exitOf(child),
      };
    };
    const waitUntilReady = (each: ClusterProcess) =>
      waitUntil(
        `${each.name} ready at ${each.url}/api/ready`,
        async () => (await probe(`${each.url}/api/ready`))?.status === 200,
        180_000,
        () =>
          each.isRunning()
            ? undefined
            : `${each.name} stopped while starting:\n${tail(each.logFile)}`,
      );

    const processes: ClusterProcess[] = [];
    for (const name of PROCESS_NAMES) processes.push(launch(name, await freePort()));
    // Both start at once, as a deploy would: migrations run under an advisory lock.
    await Promise.all(processes.map(waitUntilReady));

    const haproxyConfig = path.join(directory, 'haproxy.cfg');
    await writeFile(
      haproxyConfig,
      renderHaproxyConfig({
        LB_BIND: `127.0.0.1:${port}`,
        APP1_ADDRESS: `127.0.0.1:${processes[0]?.port}`,
        APP2_ADDRESS: `127.0.0.1:${processes[1]?.port}`,
      }),
    );
    const haproxyLogFile = path.join(directory, 'haproxy.log');
    // -db: stay in the foreground, so this process owns it and sees it end.
    const haproxy = startChild(
      haproxyPath,
      ['-db', '-f', haproxyConfig],
      { PATH: process.env.PATH ?? '' },
      haproxyLogFile,
    );
    children.push(haproxy);
    const haproxyRunning = () => haproxy.exitCode === null && haproxy.signalCode === null;
    /** Resolves once the balancer has passed a request to each of `names`. */
    const waitForBalancer = async (names: readonly ProcessName[]) => {
      const seen = new Set<string>();
      await waitUntil(
        `the balancer at ${url} passing requests to ${names.join(' and ')}`,
        async () => {
          const answer = await probe(`${url}/api/ready`);
          if (answer?.status === 200 && answer.servedBy) seen.add(answer.servedBy);
          return names.every((name) => seen.has(name));
        },
        30_000,
        () => (haproxyRunning() ? undefined : `HAProxy stopped:\n${tail(haproxyLogFile)}`),
      );
    };
    await waitForBalancer(PROCESS_NAMES);

    const sandbox = stripe;
    const capture = inbox;
    return {
      url,
      publicUrl,
      directory,
      processes,
      haproxyLogFile,
      stripe: sandbox,
      inbox: capture,
      tokenSecret,
      webhookSecret,
      trustProxy,
      async stopProcess(name, signal = 'SIGTERM') {
        const each = processes[PROCESS_NAMES.indexOf(name)];
        if (each?.isRunning()) childOf.get(name)?.kill(signal);
        return each?.exited ?? { code: null, signal: null };
      },
      async startProcess(name) {
        // `processes` keeps the order of PROCESS_NAMES.
        const index = PROCESS_NAMES.indexOf(name);
        const stopped = processes[index];
        if (!stopped) throw new ClusterError(`no process named ${name}`);
        if (stopped.isRunning()) throw new ClusterError(`${name} is still running`);
        const started = launch(name, stopped.port);
        processes[index] = started;
        await waitUntilReady(started);
        await waitForBalancer([name]);
        return started;
      },
      async close({ removeDirectory = true } = {}) {
        // The balancer first (no new requests), then each process ends its requests and its
        // outbox worker gracefully. SIGINT: with the balancer gone there is nobody to drain for.
        if (haproxyRunning()) {
          haproxy.kill('SIGTERM');
          await exitOf(haproxy);
        }
        await Promise.all(
          processes.map(async (each) => {
            if (!each.isRunning()) return;
            const child = childOf.get(each.name);
            child?.kill('SIGINT');
            const timer = setTimeout(() => child?.kill('SIGKILL'), 15_000);
            await each.exited;
            clearTimeout(timer);
          }),
        );
        process.removeListener('exit', killChildren);
        await sandbox.close();
        await capture?.close();
        if (removeDirectory) rmSync(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    killChildren();
    process.removeListener('exit', killChildren);
    await stripe?.close().catch(() => {});
    await inbox?.close().catch(() => {});
    throw error;
  }
}
