// A schema-driven fuzz of the running server (issue 28), Schemathesis's checks with fast-check as
// the engine: requests generated from the served /api/openapi.json (valid and boundary values,
// wrong types, missing and extra fields, huge, Unicode and NUL strings, broken JSON, wrong
// Content-Types, headers past 16 KB, bad path segments, wrong methods) sent over real kept-alive
// HTTP, half the signed-in ones as a real member (an operator for the support desk). Every answer
// must be no 5xx, on a connection that stays up, with a declared status and a body valid against
// the document. `node scripts/fuzz-api.mjs [requests] [seed]` runs it longer and prints the status
// table.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { makeMember } from '../support/desk-actions';
import { makeOperator } from '../support/operators';
import { startTestServer, type TestServer } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { useMovableClock } from '../support/two-step';
import {
  describeGroup,
  type Failure,
  formatReport,
  type FuzzReport,
  groupFailures,
  runFuzz,
} from './fuzz-run';
import type { FuzzIdentities } from './fuzz-requests';
import { fuzzSettings, MINIMUM_REQUESTS } from './fuzz-settings';
import { type OpenApiDocument, type Operation, operationsOf } from './openapi-document';

/** Budget plus the slowest request's 30 s, plus building the server and its accounts. */
const RUN_TIMEOUT_MS = (fuzzSettings.budgetSeconds + 30) * 1000 + 90_000;

/** Connections in use at once: a few, so requests overlap as a busy client's do. */
const CONNECTIONS = 4;

// PGlite is enough: the fuzz is about what the HTTP layer and the document say, not the SQL.
const kind = testDatabaseKinds[0]!;

/** A member, an operator whose session proved its second factor, and a member to act on. */
async function makeIdentities(app: FastifyInstance): Promise<FuzzIdentities> {
  // The operator's code step waits for the next 30-second code (support/operators.ts).
  useMovableClock();
  const member = await makeMember(app, 'fuzzed');
  const operator = await makeOperator(app, 'admin', 'fuzzing');
  const target = await makeMember(app, 'fuzz-target');
  return {
    memberToken: member.accessToken,
    operatorToken: operator.accessToken,
    knownIds: [target.userId],
  };
}

function printReport(report: FuzzReport): void {
  console.log(formatReport(report));
}

describe('the API under a schema-driven fuzz', () => {
  let server: TestServer;
  let report: FuzzReport;
  let operations: Operation[];

  beforeAll(async () => {
    server = await startTestServer(kind);
    const origin = await server.app.listen({ host: '127.0.0.1', port: 0 });
    const identities = await makeIdentities(server.app);
    const documentAnswer = await fetch(`${origin}/api/openapi.json`);
    expect(documentAnswer.status).toBe(200);
    const document = (await documentAnswer.json()) as OpenApiDocument;
    operations = operationsOf(document);
    report = await runFuzz({
      origin,
      document,
      identities,
      seed: fuzzSettings.seed,
      requestCount: fuzzSettings.requestCount,
      budgetMs: fuzzSettings.budgetSeconds * 1000,
      connections: CONNECTIONS,
    });
    printReport(report);
  }, RUN_TIMEOUT_MS);
  afterAll(async () => {
    vi.useRealTimers();
    await server?.close();
  });

  /** The failures of `kind`, one line per group. */
  function failuresOf(kind: Failure['kind']): string[] {
    return groupFailures(report.failures.filter((failure) => failure.kind === kind)).map(
      describeGroup,
    );
  }

  it(`sends at least ${MINIMUM_REQUESTS} requests within its time budget`, () => {
    expect(report.sent, `seed ${report.seed}`).toBeGreaterThanOrEqual(MINIMUM_REQUESTS);
  });

  it('reaches every operation of the document, and gets 2xx answers as the member and as the operator', () => {
    expect(operations.filter(({ operationId }) => !report.targets.get(operationId))).toEqual([]);
    const succeeded = operations.filter(
      ({ operationId, signedIn }) => signedIn && report.succeeded.has(operationId),
    );
    expect(
      succeeded.filter(({ pathTemplate }) => pathTemplate.startsWith('/api/ops/')),
    ).not.toEqual([]);
    expect(
      succeeded.filter(({ pathTemplate }) => !pathTemplate.startsWith('/api/ops/')),
    ).not.toEqual([]);
  });

  it('gets no 5xx', () => {
    expect(failuresOf('5xx'), `seed ${report.seed}`).toEqual([]);
  });

  it('has no connection dropped', () => {
    expect(failuresOf('dropped'), `seed ${report.seed}`).toEqual([]);
  });

  it('gets only statuses the document declares for the call', () => {
    expect(failuresOf('undeclared status'), `seed ${report.seed}`).toEqual([]);
  });

  it("gets bodies (and required headers) valid against the document's schema for the status", () => {
    expect(failuresOf('invalid body'), `seed ${report.seed}`).toEqual([]);
  });
});
