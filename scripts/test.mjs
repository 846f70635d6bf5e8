// `npm test`: every check, in two rounds that each keep both cores busy. Round one: type checks,
// lint, formatting, and the build the end-to-end tests serve. Round two: the unit and
// integration tests (Vitest) beside the end-to-end journeys (Playwright, one browser), which
// spend much of their time waiting on the page. Each line is prefixed with its part's name; the
// run fails if any part fails, and says which.
import { spawn } from 'node:child_process';

const rounds = [
  [
    { name: 'typecheck', command: ['npm', 'run', '--silent', 'typecheck'] },
    { name: 'lint', command: ['npm', 'run', '--silent', 'lint:code'] },
    { name: 'format', command: ['npm', 'run', '--silent', 'lint:format'] },
    { name: 'build', command: ['node', 'scripts/start.mjs', '--build-only'] },
  ],
  [
    { name: 'unit', command: ['npm', 'run', '--silent', 'test:unit'] },
    { name: 'e2e', command: ['npm', 'run', '--silent', 'test:e2e'] },
  ],
];

function run({ name, command }) {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '1' },
    });
    for (const stream of [child.stdout, child.stderr]) {
      let pending = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => {
        const lines = (pending + chunk).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) process.stdout.write(`[${name}] ${line}\n`);
      });
      stream.on('end', () => {
        if (pending) process.stdout.write(`[${name}] ${pending}\n`);
      });
    }
    child.on('close', (code) => {
      const seconds = Math.round((Date.now() - startedAt) / 1000);
      resolve({ name, ok: code === 0, seconds });
    });
  });
}

const results = [];
for (const round of rounds) {
  const outcomes = await Promise.all(round.map(run));
  results.push(...outcomes);
  if (outcomes.some((outcome) => !outcome.ok)) break;
}
console.log(
  `\n${results.map(({ name, ok, seconds }) => `${name} ${ok ? 'passed' : 'FAILED'} (${seconds} s)`).join(', ')}`,
);
const failed = results.filter((outcome) => !outcome.ok);
if (failed.length > 0 || results.length < rounds.flat().length) {
  console.error(`npm test failed: ${failed.map((outcome) => outcome.name).join(', ')}`);
  process.exit(1);
}
