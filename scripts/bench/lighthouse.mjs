// Lighthouse on the first pages, as a phone sees them: Lighthouse's default settings (mobile
// emulation, simulated slow 4G and a 4x slower CPU), performance only, several runs per page in
// a fresh Chromium each (cold cache), interleaved with the same runs of a reference page built in
// the same run and served by the product (reference-page.mjs: a minimal React 19 + Vite page).
// Prints the performance score, FCP, LCP, TBT and CLS of every run, and their medians beside the
// reference's against issue 30's goals (score ≥ 95, TBT within 100 ms of the reference's). /dashboard is measured signed in: a member is registered, and before each
// of its runs signed in through the API, with the tokens put where the web app keeps them
// (localStorage; apps/web/src/shared/http/token-store.ts) and Lighthouse told not to clear them.
//
// Usage: node scripts/bench/lighthouse.mjs [--url http://localhost:3000] [--runs 3]
//          [--pages /home,/auth/login,/purchase,/dashboard] [--save folder]
//          [--previous http://localhost:4602]
// --previous measures the same pages of another running product (the previous release, started
// from its own checkout) in the same rounds, interleaved, and prints each page's TBT beside its
// own there: a change's effect, read on one machine at one moment.
// --save writes each run's full Lighthouse report (JSON) into the folder, to see where time went.
// Without --url it starts the product itself (`node scripts/start.mjs`, building if needed) on
// PORT (4601) with a fresh DATA_DIR, and stops it at the end. Chromium is the system's
// (CHROME_PATH, else /usr/bin/chromium); nothing downloads a browser. Scores move with the
// machine's load: on a shared machine, read the medians, and compare runs made side by side.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import puppeteer from 'puppeteer-core';

import {
  buildReferencePage,
  PRERENDERED_REFERENCE_PATH,
  REFERENCE_PATH,
} from './reference-page.mjs';
import { startProduct } from './start-product.mjs';
import { callApi, loadAverage as load, median } from './support.mjs';

const { values: options } = parseArgs({
  options: {
    url: { type: 'string' },
    runs: { type: 'string', default: '3' },
    pages: { type: 'string', default: '/home,/auth/login,/purchase,/dashboard' },
    save: { type: 'string' },
    previous: { type: 'string' },
  },
});
const runs = Number(options.runs);
const pages = options.pages.split(',');
const chromePath = process.env.CHROME_PATH ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const MEMBER_AREA = '/dashboard';
const SCORE_GOAL = 95;
const TBT_ROOM_MS = 100;
const ACCESS_TOKEN_KEY = 'kegel-coach.accessToken';
const REFRESH_TOKEN_KEY = 'kegel-coach.refreshToken';

/** One Lighthouse run in a Chromium of its own; signed in first when `tokens` are given. */
async function measure(url, page, tokens, reportName) {
  const chrome = await chromeLauncher.launch({
    chromePath,
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-dev-shm-usage'],
  });
  try {
    if (tokens) {
      // A page of the same origin that loads none of the app's files, so the cache stays cold.
      const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
      const tab = await browser.newPage();
      await tab.goto(`${url}/api/health`);
      await tab.evaluate(
        (keys, pair) => {
          localStorage.setItem(keys[0], pair.accessToken);
          localStorage.setItem(keys[1], pair.refreshToken);
        },
        [ACCESS_TOKEN_KEY, REFRESH_TOKEN_KEY],
        tokens,
      );
      await tab.close();
      await browser.disconnect();
    }
    const { lhr } = await lighthouse(`${url}${page}`, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance'],
      // Lighthouse clears the origin's storage before loading the page, tokens included.
      disableStorageReset: Boolean(tokens),
    });
    if (lhr.runtimeError) return { failure: lhr.runtimeError.code };
    if (options.save) {
      mkdirSync(options.save, { recursive: true });
      writeFileSync(path.join(options.save, `${reportName}.json`), JSON.stringify(lhr));
    }
    const fcp = lhr.audits['first-contentful-paint'].numericValue;
    return {
      score: Math.round((lhr.categories.performance.score ?? 0) * 100),
      fcp,
      ...blockingAroundFirstPaint(lhr.audits['long-tasks'].details?.items ?? [], fcp),
      lcp: lhr.audits['largest-contentful-paint'].numericValue,
      tbt: lhr.audits['total-blocking-time'].numericValue,
      cls: lhr.audits['cumulative-layout-shift'].numericValue,
      finalPath: new URL(lhr.finalDisplayedUrl).pathname,
    };
  } finally {
    chrome.kill();
  }
}

/**
 * The main thread's long tasks (Lighthouse's simulated timeline, as TBT is computed), their time
 * over 50 ms summed before and after the first contentful paint. TBT counts only what comes after
 * it, so a page's work that falls before its paint costs it nothing: this tells how much of a
 * page's work TBT saw. (Beside the prerendered reference it showed that painting first is not
 * what the product's pages pay for: that page stayed within 33 ms of the reference.)
 */
function blockingAroundFirstPaint(longTasks, fcp) {
  const excess = (tasks) => tasks.reduce((sum, task) => sum + Math.max(0, task.duration - 50), 0);
  return {
    blockingBeforePaint: excess(longTasks.filter((task) => task.startTime < fcp)),
    blockingAfterPaint: excess(longTasks.filter((task) => task.startTime >= fcp)),
  };
}

function line(label, { score, fcp, lcp, tbt, cls, blockingBeforePaint, blockingAfterPaint }) {
  return `${label.padEnd(12)} score ${String(score).padStart(3)}  FCP ${String(Math.round(fcp)).padStart(5)} ms  LCP ${String(Math.round(lcp)).padStart(5)} ms  TBT ${String(Math.round(tbt)).padStart(4)} ms  CLS ${cls.toFixed(3)}  long tasks over 50 ms: ${Math.round(blockingBeforePaint)} ms before FCP, ${Math.round(blockingAfterPaint)} after`;
}

const product = options.url ? null : await startProduct();
const removeReference = await buildReferencePage();
const url = (options.url ?? product.url).replace(/\/+$/, '');
const previousUrl = options.previous?.replace(/\/+$/, '');
const PREVIOUS = ' (previous)';
try {
  const member = {
    email: `lighthouse-${Date.now()}@example.com`,
    password: 'a long and unguessable bench password',
  };
  if (pages.some((page) => page.startsWith(MEMBER_AREA))) {
    for (const base of [url, previousUrl].filter(Boolean)) {
      await callApi(base, 'POST', '/auth/local/register/email', member);
    }
  }
  console.log(
    `Lighthouse (mobile, default settings) on ${url}, ${runs} runs a page, interleaved with the ` +
      `reference page (${REFERENCE_PATH}); load average ${load()}`,
  );
  const references = [REFERENCE_PATH, PRERENDERED_REFERENCE_PATH];
  // A page of the previous release is named by its path and PREVIOUS.
  const measured = [
    ...references,
    ...pages.flatMap((page) => (previousUrl ? [page, `${page}${PREVIOUS}`] : [page])),
  ];
  const results = new Map(measured.map((page) => [page, []]));
  // Round after round over every page, the reference among them: a busy moment of the machine
  // falls on all of them alike.
  for (let run = 1; run <= runs; run += 1) {
    for (const label of measured) {
      const isPrevious = label.endsWith(PREVIOUS);
      const base = isPrevious ? previousUrl : url;
      const page = isPrevious ? label.slice(0, -PREVIOUS.length) : label;
      let result;
      // Lighthouse now and then loses its trace (NO_NAVSTART and the like): such a run is made
      // again, from a fresh browser.
      for (let attempt = 1; !result || (result.failure && attempt <= 3); attempt += 1) {
        if (result) console.log(`  (${page} run ${run}: ${result.failure}, once more)`);
        const tokens = page.startsWith(MEMBER_AREA)
          ? await callApi(base, 'POST', '/auth/local/login/email', member)
          : undefined;
        const reportName = `${page.replaceAll('/', '-').replace(/^-|-$/g, '')}${isPrevious ? '-previous' : ''}-${run}`;
        result = await measure(base, page, tokens, reportName);
      }
      if (result.failure) throw new Error(`${page}: Lighthouse failed (${result.failure})`);
      if (result.finalPath !== page)
        console.log(`  (${page} run ${run} ended on ${result.finalPath})`);
      results.get(label).push(result);
      console.log(`  ${line(`${label} ${run}`, result)}`);
    }
    console.log(`round ${run} done (load average ${load()})`);
  }
  const medians = new Map(
    measured.map((page) => {
      const of = (key) => median(results.get(page).map((result) => result[key]));
      return [
        page,
        {
          score: of('score'),
          fcp: of('fcp'),
          lcp: of('lcp'),
          tbt: of('tbt'),
          cls: of('cls'),
          blockingBeforePaint: of('blockingBeforePaint'),
          blockingAfterPaint: of('blockingAfterPaint'),
        },
      ];
    }),
  );
  const reference = medians.get(REFERENCE_PATH);
  const prerenderedReference = medians.get(PRERENDERED_REFERENCE_PATH);
  const signed = (ms) => `${ms >= 0 ? '+' : ''}${Math.round(ms)} ms`;
  console.log(
    `\nMedians of ${runs}; goals: score ≥ ${SCORE_GOAL}, TBT ≤ the reference's + ${TBT_ROOM_MS} ms. ` +
      `${PRERENDERED_REFERENCE_PATH} is the reference drawn by the build, as the visitor pages ` +
      'are: not a goal, it shows what painting before the script runs costs in TBT by itself ' +
      "(when its FCP is earlier than the reference's: a script this small may still run first).",
  );
  console.log(
    '| page | score | FCP | LCP | TBT | TBT beside the reference | beside the prerendered reference | CLS | long tasks over 50 ms before / after FCP | goals |' +
      (previousUrl ? ' TBT beside the previous release |' : ''),
  );
  console.log(`|---|---|---|---|---|---|---|---|---|---|${previousUrl ? '---|' : ''}`);
  for (const [page, middle] of medians) {
    const isReference = references.includes(page);
    const previous = medians.get(`${page}${PREVIOUS}`);
    const extraTbt = middle.tbt - reference.tbt;
    const met = middle.score >= SCORE_GOAL && extraTbt <= TBT_ROOM_MS;
    console.log(
      `| ${page} | ${middle.score} | ${Math.round(middle.fcp)} ms | ${Math.round(middle.lcp)} ms | ` +
        `${Math.round(middle.tbt)} ms | ${page === REFERENCE_PATH ? '' : signed(extraTbt)} | ` +
        `${isReference ? '' : signed(middle.tbt - prerenderedReference.tbt)} | ` +
        `${middle.cls.toFixed(3)} | ${Math.round(middle.blockingBeforePaint)} / ${Math.round(middle.blockingAfterPaint)} ms | ` +
        `${isReference || page.endsWith(PREVIOUS) ? '' : met ? 'met' : 'MISSED'} |` +
        (previousUrl ? ` ${previous ? signed(middle.tbt - previous.tbt) : ''} |` : ''),
    );
  }
  console.log(`\nLoad average at the end: ${load()}`);
} finally {
  removeReference();
  await product?.stop();
}
