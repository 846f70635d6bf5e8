// The fuzz's own parts, on a small document of known faults: a checker that let a bad answer
// through, or generators that never reached a boundary, would make the fuzz pass for nothing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { type Answer, createAnswerChecker } from './answer-checks';
import { fuzzRequest } from './fuzz-requests';
import { type OpenApiDocument, operationsOf } from './openapi-document';
import { schemaValue } from './schema-values';

const errorBody = { $ref: '#/components/schemas/ErrorBody' };
const document: OpenApiDocument = {
  openapi: '3.1.0',
  paths: {
    '/api/things/{id}': {
      get: {
        operationId: 'readThing',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        security: [{ bearerAuth: [] }],
        responses: {
          '200': {
            description: 'The thing.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { id: { type: 'string', format: 'uuid' } },
                  required: ['id'],
                  additionalProperties: false,
                },
              },
            },
          },
          '400': {
            description: 'Refused.',
            content: { 'application/json': { schema: errorBody } },
          },
        },
      },
      delete: {
        operationId: 'removeThing',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        security: [],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { reason: { type: 'string', minLength: 2, maxLength: 5 } },
                required: ['reason'],
              },
            },
          },
        },
        responses: { '200': { description: 'Removed.' } },
      },
    },
  },
  components: {
    schemas: {
      ErrorBody: {
        type: 'object',
        properties: {
          statusCode: { type: 'integer' },
          error: { type: 'string' },
          message: { type: 'string' },
        },
        required: ['statusCode', 'error', 'message'],
        additionalProperties: false,
      },
    },
    responses: {
      MethodNotAllowed: {
        description: 'Not this method.',
        headers: { Allow: { required: true, schema: { type: 'string' } } },
        content: { 'application/json': { schema: errorBody } },
      },
      RequestHeaderFieldsTooLarge: {
        description: 'Headers over 16 KB.',
        content: { 'application/json': { schema: errorBody } },
      },
    },
  },
};

const [readThing] = operationsOf(document);
const json = (status: number, body: unknown, headers: Answer['headers'] = {}): Answer => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify(body),
});
const refusal = (status: number) => ({ statusCode: status, error: 'Error', message: 'no' });

describe("the fuzz's answer checks", () => {
  const { check } = createAnswerChecker(document);
  const kindOf = (expectation: Parameters<typeof check>[0], answer: Answer) =>
    check(expectation, answer)?.kind ?? 'kept to the document';

  it('take an answer that keeps to the document, through its $refs', () => {
    const operation = readThing!;
    expect(kindOf({ operation }, json(200, { id: '5f0c6a1e-8a0b-4c1d-9e2f-3a4b5c6d7e8f' }))).toBe(
      'kept to the document',
    );
    expect(kindOf({ operation }, json(400, refusal(400)))).toBe('kept to the document');
    expect(kindOf({ operation }, json(431, refusal(431)))).toBe('kept to the document');
  });

  it('find a 5xx, an undeclared status, a body off its schema, a body that is not JSON', () => {
    const operation = readThing!;
    expect(kindOf({ operation }, json(500, refusal(500)))).toBe('5xx');
    expect(kindOf({ operation }, json(413, refusal(413)))).toBe('undeclared status');
    expect(kindOf({ operation }, json(200, { id: 'not a uuid' }))).toBe('invalid body');
    expect(kindOf({ operation }, json(400, { ...refusal(400), code: 'FST_ERR' }))).toBe(
      'invalid body',
    );
    expect(
      kindOf({ operation }, { status: 200, headers: { 'content-type': 'text/html' }, body: '<p>' }),
    ).toBe('invalid body');
  });

  it("hold a wrong method to 405 with the shared answer's Allow header", () => {
    const wrongMethod = { status: 405, reason: 'a wrong method' };
    expect(kindOf(wrongMethod, json(404, refusal(404)))).toBe('undeclared status');
    expect(kindOf(wrongMethod, json(405, refusal(405)))).toBe('invalid body');
    expect(kindOf(wrongMethod, json(405, refusal(405), { allow: 'GET, DELETE' }))).toBe(
      'kept to the document',
    );
  });
});

describe("the fuzz's requests", () => {
  const operations = operationsOf(document);

  it("reach a string's boundary lengths: min, max and max + 1", () => {
    const lengths = new Set(
      fc
        .sample(schemaValue(document, { type: 'string', minLength: 2, maxLength: 5 }), {
          seed: 1,
          numRuns: 300,
        })
        .map((value) => (value as string).length),
    );
    expect([2, 5, 6].filter((length) => !lengths.has(length))).toEqual([]);
  });

  it('try a wrong method, a token for signed-in calls and none, and bodies broken several ways', () => {
    const requests = fc.sample(
      fuzzRequest(document, operations, {
        memberToken: 'member-token',
        operatorToken: 'operator-token',
        knownIds: [],
      }),
      { seed: 1, numRuns: 600 },
    );
    const probes = new Set(requests.map((request) => request.probe));
    for (const probe of ['valid', 'wrong method', 'missing field', 'broken JSON', 'huge body']) {
      expect(probes, probe).toContain(probe);
    }
    const wrongMethods = new Set(
      requests.filter((request) => request.probe === 'wrong method').map(({ method }) => method),
    );
    expect([...wrongMethods].sort()).toEqual(['PATCH', 'POST', 'PUT']);
    const signedIn = requests.filter((request) => request.target === 'readThing');
    const withToken = signedIn.filter(
      (request) => request.headers.authorization === 'Bearer member-token',
    );
    expect(withToken.length).toBeGreaterThan(signedIn.length / 4);
    expect(withToken.length).toBeLessThan(signedIn.length);
  });
});
