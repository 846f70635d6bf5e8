// What the benches share: the machine's load, medians, and the product's HTTP API as a client
// and as a child process.
import { loadavg } from 'node:os';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The load averages over 1, 5 and 15 minutes, printed beside every figure. */
export function loadAverage() {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Waits until `${baseUrl}/api/health` answers, for up to a minute. */
export async function waitForHealth(baseUrl) {
  for (let tries = 0; tries < 600; tries += 1) {
    const ok = await fetch(`${baseUrl}/api/health`)
      .then((response) => response.ok)
      .catch(() => false);
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`nothing answers at ${baseUrl}`);
}

/** Stops a child process and waits for it to end. */
export async function stopProcess(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** One call of the product's API; its JSON answer, or an error naming the call and the answer. */
export async function callApi(baseUrl, method, route, body, accessToken) {
  const response = await fetch(`${baseUrl}/api${route}`, {
    method,
    headers: {
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
  return JSON.parse(text);
}
