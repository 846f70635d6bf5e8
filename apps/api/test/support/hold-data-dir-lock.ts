// Run by data-dir-lock.test.ts in a process of its own: takes the lock of the directory given as
// its argument, says so with its pid, and holds it until it is killed.
import { lockDataDir } from '../../src/db/data-dir-lock';

lockDataDir(process.argv[2] ?? '');
process.stdout.write(`locked ${process.pid}\n`);
setInterval(() => {}, 60_000);
