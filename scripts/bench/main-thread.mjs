// The first pages' main thread, task by task, as a slower phone would run it: what Lighthouse's
// Total Blocking Time is made of, read without Lighthouse's one weak spot on a fast machine.
// Lighthouse counts a long task only after the first paint, and on a fast machine the page's script
// often runs before that paint, so the same page scores TBT 0 here and several hundred ms on a
// machine twice as slow (issue 30). This loads each page in a fresh headless Chromium with its
// CPU slowed down (`--cpu`, default 2: a machine about twice as slow as this one), records a
// trace, and from the first evaluation of the page's script on sums each main-thread task's time
// over 50 ms at Lighthouse's own 4 x CPU slowdown (4 x duration - 50 ms), whether it fell before
// the first paint or after: the blocking the page would show if its script ran after its first
// paint. It prints the median of that sum and of the longest task over the runs, beside the
// prerendered reference page (reference-page.mjs: a minimal React 19 + Vite page taken over as
// the visitor pages are) measured in the same rounds, and beside another running product
// (`--previous`, the previous release) when given.
//
// Usage: node scripts/bench/main-thread.mjs [--url http://localhost:4601] [--previous URL]
//          [--runs 5] [--cpu 2] [--pages /home,/auth/login,/auth/register,/purchase]
// Without --url it starts the product itself (start-product.mjs). Chromium is the system's
// (CHROME_PATH, else /usr/bin/chromium). The figures move with the machine's load: compare
// medians taken in the same run.
import { parseArgs } from 'node:util';

import puppeteer from 'puppeteer-core';

import { buildReferencePage, PRERENDERED_REFERENCE_PATH } from './reference-page.mjs';
import { startProduct } from './start-product.mjs';
import { loadAverage, median } from './support.mjs';

const { values: options } = parseArgs({
  options: {
    url: { type: 'string' },
    previous: { type: 'string' },
    runs: { type: 'string', default: '5' },
    cpu: { type: 'string', default: '2' },
    pages: { type: 'string', default: '/home,/auth/login,/auth/register,/purchase' },
  },
});
const chromePath = process.env.CHROME_PATH ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const LIGHTHOUSE_CPU_SLOWDOWN = 4;
const LONG_TASK_MS = 50;
const PREVIOUS = ' (previous)';

/** One load of `url`: its main thread's tasks from its script's first evaluation on. */
async function measure(url) {
  const browser = await puppeteer.launch({
    executablePath: chromePath,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage();
    const session = await page.createCDPSession();
    await session.send('Emulation.setCPUThrottlingRate', { rate: Number(options.cpu) });
    await page.tracing.start({
      categories: [
        'devtools.timeline',
        'disabled-by-default-devtools.timeline',
        'v8.execute',
        'loading',
      ],
    });
    await page.goto(url, { waitUntil: 'networkidle0' });
    // Whatever the page starts once its requests are done (the queries' answers drawn).
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const trace = JSON.parse(Buffer.from(await page.tracing.stop()).toString('utf8'));
    return blockingOf(trace.traceEvents);
  } finally {
    await browser.close();
  }
}

/** The page's renderer main thread (the one that parsed its HTML), and its tasks' blocking. */
function blockingOf(events) {
  const parse = events.find(
    (event) => event.name === 'ParseHTML' && event.args?.beginData?.url?.startsWith('http'),
  );
  if (!parse) throw new Error('the trace has no parse of the page');
  const onMainThread = events.filter(
    (event) => event.pid === parse.pid && event.tid === parse.tid && event.ph === 'X',
  );
  const firstEvaluation = onMainThread.find(
    (event) => event.name === 'v8.evaluateModule' && event.ts >= parse.ts,
  );
  if (!firstEvaluation) throw new Error("the page's script was not evaluated");
  const tasks = onMainThread.filter((event) => event.name === 'RunTask');
  // The task that holds it (the evaluation itself when the trace names no task around it).
  const from =
    tasks.find((task) => task.ts <= firstEvaluation.ts && task.ts + task.dur >= firstEvaluation.ts)
      ?.ts ?? firstEvaluation.ts;
  const durations = tasks.filter((task) => task.ts >= from).map((task) => task.dur / 1000);
  return {
    blocking: durations.reduce(
      (sum, ms) => sum + Math.max(0, LIGHTHOUSE_CPU_SLOWDOWN * ms - LONG_TASK_MS),
      0,
    ),
    longest: Math.max(...durations),
  };
}

const product = options.url ? null : await startProduct();
const removeReference = await buildReferencePage();
const url = (options.url ?? product.url).replace(/\/+$/, '');
const previousUrl = options.previous?.replace(/\/+$/, '');
try {
  const pages = options.pages.split(',');
  const measured = [
    PRERENDERED_REFERENCE_PATH,
    ...pages.flatMap((page) => (previousUrl ? [page, `${page}${PREVIOUS}`] : [page])),
  ];
  console.log(
    `Main thread of the first pages at ${options.cpu} x CPU, ${options.runs} runs a page, ` +
      `interleaved with the prerendered reference; load average ${loadAverage()}`,
  );
  const results = new Map(measured.map((label) => [label, []]));
  for (let run = 1; run <= Number(options.runs); run += 1) {
    for (const label of measured) {
      const isPrevious = label.endsWith(PREVIOUS);
      const base = isPrevious ? previousUrl : url;
      const path = isPrevious ? label.slice(0, -PREVIOUS.length) : label;
      results.get(label).push(await measure(`${base}${path}`));
    }
    console.log(`round ${run} done (load average ${loadAverage()})`);
  }
  const reference = median(results.get(PRERENDERED_REFERENCE_PATH).map((r) => r.blocking));
  console.log(
    `\nMedians of ${options.runs}: blocking = the sum over the tasks from the script's first ` +
      `evaluation on of (${LIGHTHOUSE_CPU_SLOWDOWN} x duration - ${LONG_TASK_MS} ms), as ` +
      "Lighthouse's TBT counts them if they follow the first paint.",
  );
  console.log('| page | blocking | beside the prerendered reference | longest task | every run |');
  console.log('|---|---|---|---|---|');
  for (const [label, runs] of results) {
    const blocking = median(runs.map((r) => r.blocking));
    const difference = Math.round(blocking - reference);
    const beside =
      label === PRERENDERED_REFERENCE_PATH ? '' : `${difference >= 0 ? '+' : ''}${difference} ms`;
    console.log(
      `| ${label} | ${Math.round(blocking)} ms | ${beside} | ` +
        `${median(runs.map((r) => r.longest)).toFixed(1)} ms | ` +
        `${runs.map((r) => Math.round(r.blocking)).join(', ')} |`,
    );
  }
  console.log(`\nLoad average at the end: ${loadAverage()}`);
} finally {
  removeReference();
  await product?.stop();
}
