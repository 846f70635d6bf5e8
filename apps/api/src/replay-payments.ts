// `npm run payments:replay -- <event id> …`: grants paid Stripe checkouts that were parked (see
// modules/payments/replay-parked-checkouts.ts). Without an event id, lists what is parked.
import { ConfigError, loadConfig } from './config';
import { DataDirLockedError } from './db/data-dir-lock';
import {
  listParkedCheckouts,
  replayParkedCheckouts,
} from './modules/payments/replay-parked-checkouts';

async function run(eventIds: string[]): Promise<number> {
  const config = loadConfig();
  if (eventIds.length === 0) {
    const parked = await listParkedCheckouts(config);
    if (parked.length === 0) process.stdout.write('No parked Stripe checkouts.\n');
    for (const event of parked) {
      process.stdout.write(`${event.eventId}  ${event.parkedAt.toISOString()}  ${event.reason}\n`);
    }
    return 0;
  }
  const results = await replayParkedCheckouts(config, eventIds);
  for (const result of results) process.stdout.write(`${result.eventId}: ${result.outcome}\n`);
  const isDone = (outcome: string) => outcome === 'granted' || outcome === 'already-granted';
  return results.every((result) => isDone(result.outcome)) ? 0 : 1;
}

run(process.argv.slice(2).filter((argument) => argument !== '--'))
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
    else if (error instanceof DataDirLockedError)
      process.stderr.write(
        `${error.message}\nThe embedded database (PGlite) serves one process: stop the server, replay, start it again.\n`,
      );
    else
      process.stderr.write(
        `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    process.exit(1);
  });
