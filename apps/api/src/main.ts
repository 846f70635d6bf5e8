import closeWithGrace from 'close-with-grace';

import { buildApp } from './app';
import { type Config, ConfigError, loadConfig } from './config';
import { DataDirLockedError } from './db/data-dir-lock';
import { DatabaseUnavailableError } from './db/database';
import { isLoopbackHost } from './security/loopback';

/**
 * How long closing may take after the drain (requests in flight, the outbox worker, the database)
 * before the process exits anyway, with code 1.
 */
const CLOSE_TIMEOUT_MS = 10_000;

/**
 * Starts the server: configuration, database (migrated), routes, then listen. A problem a person
 * can fix (a wrong variable, a database that does not answer, a port in use) ends the process
 * with one line naming the variable to look at and exit code 1, not a stack trace.
 */
async function start(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    return exitWith(error);
  }

  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  try {
    app = await buildApp(config);
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app?.close().catch(() => {});
    return exitWith(error, config);
  }
  const server = app;

  const drainMs = config.shutdownDrainSeconds * 1000;
  closeWithGrace(
    { delay: drainMs + CLOSE_TIMEOUT_MS },
    async function closeServer({ err, signal }) {
      server.shutdown.begin();
      if (err) server.log.error({ err }, 'closing after an uncaught error');
      else server.log.info({ signal }, 'closing');
      // SIGTERM is how an orchestrator (docker stop, Kubernetes, npm run cluster) stops a process
      // behind a balancer; Ctrl+C in a terminal (SIGINT) stops a developer's, who waits for nobody.
      if (signal === 'SIGTERM' && drainMs > 0) {
        server.log.info(
          `draining for ${config.shutdownDrainSeconds} s: /api/ready fails, calls are still served`,
        );
        await new Promise((resolve) => setTimeout(resolve, drainMs));
      }
      // Stops taking connections, closes the idle ones and waits for the requests in flight.
      await server.close();
    },
  );

  const shownHost = ['localhost', '0.0.0.0', '::', '127.0.0.1'].includes(config.host)
    ? 'localhost'
    : config.host;
  process.stdout.write(`\nKegel Coach is running at http://${shownHost}:${config.port}\n\n`);
  if (config.environment !== 'production' && !isLoopbackHost(config.host)) {
    const warning = `Warning: development mode is listening on ${config.host}, beyond this machine. Its conveniences (generated secrets, the payment and sign-in sandboxes) are not for a network; /dev/inbox answers only this machine. Use HOST=localhost, or NODE_ENV=production to serve others.`;
    server.log.warn(warning);
    process.stderr.write(`${warning}\n`);
  }
}

function exitWith(error: unknown, config?: Config): never {
  process.stderr.write(`${describeStartError(error, config)}\n`);
  process.exit(1);
}

function describeStartError(error: unknown, config?: Config): string {
  if (error instanceof ConfigError) return error.message;
  if (error instanceof DatabaseUnavailableError) {
    const variable = config?.database.kind === 'postgres' ? 'DATABASE_URL' : 'DATA_DIR';
    return `Invalid configuration: ${variable}: ${error.message}`;
  }
  if (error instanceof DataDirLockedError)
    return `Invalid configuration: DATA_DIR: ${error.message}`;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return `Invalid configuration: PORT: ${config?.port} is already in use on ${config?.host}`;
  }
  if (code === 'EACCES' || code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return `Invalid configuration: HOST/PORT: cannot listen on ${config?.host}:${config?.port} (${code})`;
  }
  return `Could not start: ${(error as Error).stack ?? String(error)}`;
}

await start();
