// Measures sign-in: the median time of a login for a known email (wrong password) and for an
// unknown email (they must match within noise: no account enumeration), the median of a
// successful login, and how many logins per second the server sustains.
//
//   npm run bench:login --workspace @kegel/api            (PGlite)
//   DATABASE_URL=postgres://... npm run bench:login ...    (PostgreSQL)
//
// The server is the real one (buildApp), listening on loopback, driven over HTTP by autocannon.
// The per-address request limit is lifted for the run; everything else is as in production.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import autocannon from 'autocannon';

import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';

const SAMPLES = 60;
const THROUGHPUT_SECONDS = 10;

const dataDir = mkdtempSync(path.join(tmpdir(), 'kegel-bench-'));
const config = loadConfig({
  ...process.env,
  NODE_ENV: 'test',
  DATA_DIR: dataDir,
  TOKEN_SECRET: 'bench-token-secret-that-is-long-enough-0123456789',
  LOG_LEVEL: 'silent',
  AUTH_REQUESTS_PER_MINUTE: '1000000',
});
const app = await buildApp(config, { logger: false, webRoot: '/nonexistent' });
const address = await app.listen({ host: '127.0.0.1', port: 0 });

async function login(email: string, password: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${address}/api/auth/local/login/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

try {
  // Enough accounts that no one of them reaches the failed-sign-in limit (5 per 15 minutes).
  const accounts = Array.from(
    { length: SAMPLES },
    (_, index) => `bench.${index}.${Date.now()}@example.com`,
  );
  for (const email of accounts) {
    await fetch(`${address}/api/auth/local/register/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'correct horse battery' }),
    });
  }
  for (let warmup = 0; warmup < 5; warmup += 1)
    await login(accounts[warmup]!, 'correct horse battery');

  const known: number[] = [];
  const unknown: number[] = [];
  const success: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample += 1) {
    // Interleaved, so drift in the machine's load affects both series alike.
    const wrong = await login(accounts[sample]!, 'wrong password!');
    const missing = await login(`nobody.${sample}.${Date.now()}@example.com`, 'wrong password!');
    const right = await login(accounts[sample]!, 'correct horse battery');
    if (wrong.status !== 401 || missing.status !== 401 || right.status !== 200) {
      throw new Error(`unexpected statuses ${wrong.status} ${missing.status} ${right.status}`);
    }
    known.push(wrong.ms);
    unknown.push(missing.ms);
    success.push(right.ms);
  }
  console.log(`database: ${config.database.kind}`);
  console.log(
    `login, known email + wrong password: median ${median(known).toFixed(1)} ms (${SAMPLES} samples)`,
  );
  console.log(
    `login, unknown email:                median ${median(unknown).toFixed(1)} ms (${SAMPLES} samples)`,
  );
  console.log(
    `login, success:                      median ${median(success).toFixed(1)} ms (${SAMPLES} samples)`,
  );

  const result = await autocannon({
    url: `${address}/api/auth/local/login/email`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: accounts[0], password: 'correct horse battery' }),
    connections: 16,
    duration: THROUGHPUT_SECONDS,
  });
  const ok = result['2xx'];
  console.log(
    `throughput: ${(ok / THROUGHPUT_SECONDS).toFixed(1)} successful logins/s over ${THROUGHPUT_SECONDS} s ` +
      `(16 connections; p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; ` +
      `non-2xx ${result.non2xx}, errors ${result.errors})`,
  );
} finally {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}
