// One fuzz run: requests drawn by fast-check from a seed, sent a few at a time to the listening
// server until the count is reached or the time budget is spent, each answer checked against the
// document; what came back is tallied (status table) and every failure kept with its request.
import fc from 'fast-check';

import { type Answer, createAnswerChecker, type FailureKind } from './answer-checks';
import { type FuzzIdentities, type FuzzRequest, fuzzRequest } from './fuzz-requests';
import { createHttpSender, type Sent } from './http-sender';
import { type OpenApiDocument, operationsOf } from './openapi-document';

export interface FuzzSettings {
  origin: string;
  document: OpenApiDocument;
  identities: FuzzIdentities;
  seed: number;
  requestCount: number;
  /** A safety net: no new request once it is spent (the caller checks the count was reached). */
  budgetMs: number;
  connections: number;
}

export interface Failure {
  kind: FailureKind;
  target: string;
  probe: string;
  /** The status answered, or the connection error. */
  outcome: string;
  detail: string;
  request: string;
  answer: string;
}

export interface FuzzReport {
  seed: number;
  sent: number;
  elapsedMs: number;
  operations: number;
  /** Status (or `dropped`) → number of answers. */
  statuses: Map<string, number>;
  probes: Map<string, number>;
  /** Requests per operation (or wrong-method target). */
  targets: Map<string, number>;
  /** The operations that answered a 2xx at least once: the identities and the values worked. */
  succeeded: Set<string>;
  failures: Failure[];
}

const BATCH = 100;

/**
 * A dropped connection is grouped by what the connection carried before it: a server that closes
 * a connection it left looking reusable fails the next request sent on it, not its own.
 */
function droppedFailure(request: FuzzRequest, sent: Extract<Sent, { dropped: string }>): Failure {
  const { previous } = sent;
  return {
    kind: 'dropped',
    target: request.target,
    probe: previous
      ? `after ${previous.request.probe} answered ${previous.outcome}`
      : request.probe,
    outcome: sent.dropped,
    detail: previous
      ? `the connection had carried ${describeRequest(previous.request)}, answered ${previous.outcome}`
      : 'on a new connection',
    request: describeRequest(request),
    answer: '',
  };
}
/** The start of a text, as JSON, cut where no surrogate pair is split. */
function excerpt(text: string | undefined, length = 300): string {
  if (text === undefined) return '';
  if (text.length <= length) return JSON.stringify(text);
  return JSON.stringify(`${text.slice(0, length).replace(/[\ud800-\udbff]$/, '')}…`);
}

function describeRequest(request: FuzzRequest): string {
  const entries = Object.entries(request.headers);
  const headers = entries
    .slice(0, 4)
    .map(([name, value]) => `${name}: ${excerpt(value, 60)}`)
    .concat(entries.length > 4 ? [`…${entries.length - 4} more headers`] : [])
    .join(', ');
  return `${request.method} ${excerpt(request.path, 120)} [${headers}] ${excerpt(request.body, 200)}`;
}

export async function runFuzz(settings: FuzzSettings): Promise<FuzzReport> {
  const operations = operationsOf(settings.document);
  const checker = createAnswerChecker(settings.document);
  const arbitrary = fuzzRequest(settings.document, operations, settings.identities);
  const sender = createHttpSender(settings.origin, settings.connections);
  const report: FuzzReport = {
    seed: settings.seed,
    sent: 0,
    elapsedMs: 0,
    operations: operations.length,
    statuses: new Map(),
    probes: new Map(),
    targets: new Map(),
    succeeded: new Set(),
    failures: [],
  };
  const count = (table: Map<string, number>, key: string) =>
    table.set(key, (table.get(key) ?? 0) + 1);
  const started = Date.now();
  let batch: FuzzRequest[] = [];
  let drawn = 0;
  /** The next request, drawn in batches of 100 from seed, seed + 1, …: the same seed, the same requests. */
  function next(): FuzzRequest | undefined {
    if (drawn >= settings.requestCount || Date.now() - started > settings.budgetMs)
      return undefined;
    if (drawn % BATCH === 0) {
      batch = fc.sample(arbitrary, { seed: settings.seed + drawn / BATCH, numRuns: BATCH });
    }
    return batch[drawn++ % BATCH];
  }
  async function worker() {
    for (let request = next(); request; request = next()) {
      const sent = await sender.send(request);
      report.sent += 1;
      count(report.probes, request.probe);
      count(report.targets, request.target);
      if ('answer' in sent && sent.answer.status < 300) report.succeeded.add(request.target);
      count(report.statuses, 'dropped' in sent ? 'dropped' : String(sent.answer.status));
      const failure =
        'dropped' in sent ? droppedFailure(request, sent) : answerFailure(request, sent);
      if (failure) report.failures.push(failure);
    }
  }
  function answerFailure(request: FuzzRequest, { answer }: { answer: Answer }): Failure | null {
    const problem = checker.check(request.expectation, answer);
    if (!problem) return null;
    return {
      ...problem,
      target: request.target,
      probe: request.probe,
      outcome: String(answer.status),
      request: describeRequest(request),
      answer: excerpt(answer.body),
    };
  }
  try {
    await Promise.all(Array.from({ length: settings.connections }, worker));
  } finally {
    sender.close();
  }
  report.elapsedMs = Date.now() - started;
  return report;
}

export interface FailureGroup {
  count: number;
  /** The operations (or wrong-method targets) it happened on. */
  targets: Set<string>;
  example: Failure;
}

/** Failures of one kind, probe and outcome, counted, with where and a first example. */
export function groupFailures(failures: Failure[]): Array<[string, FailureGroup]> {
  const groups = new Map<string, FailureGroup>();
  for (const failure of failures) {
    const key = `${failure.kind} | ${failure.probe} | ${failure.outcome}`;
    const group = groups.get(key) ?? { count: 0, targets: new Set(), example: failure };
    group.count += 1;
    group.targets.add(failure.target);
    groups.set(key, group);
  }
  return [...groups].sort(([a], [b]) => a.localeCompare(b));
}

/** One group as the report and the assertions print it. */
export function describeGroup([key, { count, targets, example }]: [string, FailureGroup]): string {
  const where = [...targets].sort();
  const named =
    where.length > 6
      ? `${where.slice(0, 6).join(', ')} and ${where.length - 6} more`
      : where.join(', ');
  return [
    `${key} ×${count} on ${named}: ${example.detail}`,
    `    e.g. sent: ${example.request}`,
    `         got:  ${example.answer}`,
  ].join('\n');
}

const table = (entries: Map<string, number>) =>
  [...entries]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `  ${key.padEnd(22)} ${String(value).padStart(6)}`)
    .join('\n');

/** The run as the note quotes it: counts, the status table, the probes, the failures by kind. */
export function formatReport(report: FuzzReport): string {
  const byKind = new Map<string, number>();
  for (const failure of report.failures)
    byKind.set(failure.kind, (byKind.get(failure.kind) ?? 0) + 1);
  const lines = [
    `API fuzz: ${report.sent} requests to ${report.operations} operations in ${(report.elapsedMs / 1000).toFixed(1)} s, seed ${report.seed} (FUZZ_SEED=${report.seed} repeats it)`,
    'status                  answers',
    table(report.statuses),
    'probe                  requests',
    table(report.probes),
    `failures: ${report.failures.length}${report.failures.length ? '' : ' (none)'}`,
    table(byKind),
  ];
  for (const group of groupFailures(report.failures)) lines.push(`- ${describeGroup(group)}`);
  return lines.join('\n');
}
