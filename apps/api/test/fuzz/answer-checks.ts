// What every answer of the fuzz is held to: no 5xx, a status the document declares for the call,
// the headers it says are required, and a body valid against its schema (JSON Schema 2020-12, as
// OpenAPI 3.1 defines it, checked by Ajv with the formats the document uses).
import { STATUS_CODES } from 'node:http';

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

import {
  type DeclaredAnswer,
  declaredAnswer,
  type JsonSchema,
  type OpenApiDocument,
  type Operation,
} from './openapi-document';

export type FailureKind = '5xx' | 'dropped' | 'undeclared status' | 'invalid body';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** What a request is checked against: its operation's answers, or a status of its own. */
export type Expectation =
  | { operation: Operation }
  /** A wrong method (405) or a path nobody serves (404): no operation answers it. */
  | { status: number; reason: string };

/**
 * Statuses Node or Fastify answer before any route is chosen (headers too large, a URL over the
 * router's limit): no operation can be said to answer them, so the document may declare them once,
 * in `components.responses`, instead of on every operation.
 */
const BEFORE_ROUTING = new Set([414, 431]);

/** Base URI under which the document's components are known to Ajv. */
const DOCUMENT_ID = 'https://fuzz.test/openapi.json';

const normalized = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/** A shared answer of `components.responses` named after the status (`405`, `MethodNotAllowed`). */
function componentAnswer(document: OpenApiDocument, status: number): DeclaredAnswer | undefined {
  const phrase = normalized(STATUS_CODES[status] ?? String(status));
  const entry = Object.entries(document.components?.responses ?? {}).find(
    ([name]) => name.includes(String(status)) || normalized(name).includes(phrase),
  );
  return entry && declaredAnswer(document, entry[1]);
}

/** The error shape, for a 404/405 the document declares nowhere. */
function errorSchemaOf(document: OpenApiDocument): JsonSchema | undefined {
  const named = Object.entries(document.components?.schemas ?? {}).find(([name]) =>
    /error/i.test(name),
  );
  if (named) return named[1] as JsonSchema;
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem)) {
      const responses = (operation.responses ?? {}) as Record<string, unknown>;
      const clientError = Object.entries(responses).find(([status]) => status.startsWith('4'));
      const schema = clientError && declaredAnswer(document, clientError[1]).schema;
      if (schema) return schema;
    }
  }
  return undefined;
}

export function createAnswerChecker(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema({ $id: DOCUMENT_ID, components: document.components ?? {} });
  const validators = new WeakMap<JsonSchema, ValidateFunction>();
  const errorSchema = errorSchemaOf(document);

  function validatorFor(schema: JsonSchema): ValidateFunction {
    let validate = validators.get(schema);
    if (!validate) {
      // A schema taken out of the document keeps its `#/components/...` references working.
      const anchored = JSON.parse(
        JSON.stringify(schema).replaceAll(
          '"$ref":"#/components/',
          `"$ref":"${DOCUMENT_ID}#/components/`,
        ),
      ) as JsonSchema;
      validate = ajv.compile(anchored);
      validators.set(schema, validate);
    }
    return validate;
  }

  function answerDeclaredFor(expectation: Expectation, status: number) {
    if ('operation' in expectation) {
      const { answers } = expectation.operation;
      const declared =
        answers.get(String(status)) ??
        answers.get(`${String(status)[0]}XX`) ??
        answers.get('default');
      return (
        declared ?? (BEFORE_ROUTING.has(status) ? componentAnswer(document, status) : undefined)
      );
    }
    if (status !== expectation.status) return undefined;
    // A 405 names the methods the path does answer (RFC 9110, 15.5.6).
    const requiredHeaders = status === 405 ? ['allow'] : [];
    return componentAnswer(document, status) ?? { schema: errorSchema, requiredHeaders };
  }

  /** Why the answer breaks the document, or null when it keeps to it. */
  function check(
    expectation: Expectation,
    answer: Answer,
  ): { kind: FailureKind; detail: string } | null {
    if (answer.status >= 500) return { kind: '5xx', detail: `answered ${answer.status}` };
    const declared = answerDeclaredFor(expectation, answer.status);
    if (!declared) {
      const wanted =
        'operation' in expectation
          ? `declared: ${[...expectation.operation.answers.keys()].join(', ')}`
          : `wanted ${expectation.status} (${expectation.reason})`;
      return { kind: 'undeclared status', detail: `answered ${answer.status}, ${wanted}` };
    }
    const missing = declared.requiredHeaders.filter((name) => answer.headers[name] === undefined);
    if (missing.length > 0) {
      return { kind: 'invalid body', detail: `no ${missing.join(', ')} header` };
    }
    if (!declared.schema) return null;
    const contentType = String(answer.headers['content-type'] ?? '');
    if (!/^application\/(?:[\w.+-]+\+)?json\b/.test(contentType)) {
      return { kind: 'invalid body', detail: `Content-Type "${contentType}", not JSON` };
    }
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return { kind: 'invalid body', detail: 'not JSON' };
    }
    const validate = validatorFor(declared.schema);
    if (validate(body)) return null;
    return { kind: 'invalid body', detail: ajv.errorsText(validate.errors) };
  }

  return { check };
}
