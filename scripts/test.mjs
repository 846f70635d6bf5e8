// `npm test`: every check, in two rounds that each keep both cores busy. Round one: type checks,
// lint, formatting, and the build the end-to-end tests serve. Round two: the unit and
// integration tests (Vitest), then the cluster test (two built processes behind HAProxy, which
// wants the build too), beside the end-to-end journeys (Playwright, one browser), which spend
// much of their time waiting on the page and outlast the other two. Each line is prefixed with its
// part's name; the run fails if any part fails, and says which.
import { spawn } from 'node:child_process';

const rounds = [
  [
    { name: 'typecheck', command: ['npm', 'run', '--silent', 'typecheck'] },
    { name: 'lint', command: ['npm', 'run', '--silent', 'lint:code'] },
    { name: 'format', command: ['npm', 'run', '--silent', 'lint:format'] },
    { name: 'build', command: ['node', 'scripts/start.mjs', '--build-only'] },
  ],
  [
    // One after the other: each starts processes of its own, and together they would take the
    // cores the end-to-end journeys' timing depends on.
    [
      { name: 'unit', command: ['npm', 'run', '--silent', 'test:unit'] },
      { name: 'cluster', command: ['npm', 'run', '--silent', 'test:cluster'] },
    ],
    { name: 'e2e', command: ['npm', 'run', '--silent', 'test:e2e'] },
  ],
];

/** A lane of a round: one part, or parts run one after another (stopping at a failure). */
async function runLane(lane) {
  const outcomes = [];
  for (const part of [lane].flat()) {
    const outcome = await run(part);
    outcomes.push(outcome);
    if (!outcome.ok) break;
  }
  return outcomes;
}

// What of a failed part's output is printed again at the end: CI keeps only the tail of the whole
// run, and a part that failed early would otherwise have its summary (which test, what error)
// buried under the parts still running beside it. Its lines naming a failed test (Vitest's "FAIL",
// Playwright's "✘" and numbered failures) with the few lines after each (the error), then its
// last lines.
const TAIL_LINES_OF_A_FAILURE = 20;
const FAILURE_LINES_KEPT = 40;
// eslint-disable-next-line no-control-regex -- the colours' escape sequences, to read the text
const COLOURS = /\u001b\[[0-9;]*m/g;
const NAMES_A_FAILURE = /\bFAIL\b|✘|^\s*\d+\) \[/;
const LINES_AFTER_A_FAILURE = 4;

function run({ name, command }) {
  const startedAt = Date.now();
  const tail = [];
  const failures = [];
  let linesStillToKeep = 0;
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
        for (const line of lines) {
          process.stdout.write(`[${name}] ${line}\n`);
          tail.push(line);
          if (NAMES_A_FAILURE.test(line.replace(COLOURS, ''))) {
            linesStillToKeep = 1 + LINES_AFTER_A_FAILURE;
          }
          if (linesStillToKeep > 0 && failures.length < FAILURE_LINES_KEPT && line.trim()) {
            failures.push(line);
            linesStillToKeep -= 1;
          }
        }
        if (tail.length > TAIL_LINES_OF_A_FAILURE)
          tail.splice(0, tail.length - TAIL_LINES_OF_A_FAILURE);
      });
      stream.on('end', () => {
        if (!pending) return;
        process.stdout.write(`[${name}] ${pending}\n`);
        tail.push(pending);
      });
    }
    child.on('close', (code) => {
      const seconds = Math.round((Date.now() - startedAt) / 1000);
      resolve({ name, ok: code === 0, seconds, tail, failures });
    });
  });
}

const results = [];
for (const round of rounds) {
  const outcomes = (await Promise.all(round.map(runLane))).flat();
  results.push(...outcomes);
  if (outcomes.some((outcome) => !outcome.ok)) break;
}
console.log(
  `\n${results.map(({ name, ok, seconds }) => `${name} ${ok ? 'passed' : 'FAILED'} (${seconds} s)`).join(', ')}`,
);
const failed = results.filter((outcome) => !outcome.ok);
for (const { name, tail, failures } of failed) {
  console.log(`\n--- ${name} failed: its lines naming a failure, then its last ${tail.length} ---`);
  for (const line of [...failures, '...', ...tail]) console.log(`[${name}] ${line}`);
}
if (failed.length > 0 || results.length < rounds.flat(2).length) {
  console.error(`npm test failed: ${failed.map((outcome) => outcome.name).join(', ')}`);
  process.exit(1);
}
