// What the contract knows beyond the schemas, written into the generated API document: what each
// status means and the headers it carries (Retry-After, Content-Disposition, Location), the
// examples of every call, the body and signature header of Stripe's webhook, and components that
// are all used and named once.
import { type Endpoint, endpoints } from '@kegel/contract';
import { callExamples } from '@kegel/contract/examples';

import {
  type Operation,
  type OpenApiDocument,
  type Parameter,
  type Response,
  tidyComponents,
} from './tidy-components';

/** What each status means to a client of any call; a call's description says what is its own. */
const STATUS_MEANINGS: Readonly<Record<string, string>> = {
  '400':
    'The input is not valid: `message` lists each problem, and `fields` names the field of each (a form shows it under that field). Or the call is refused as its description says.',
  '401':
    'Not signed in, or what was sent to prove it (an access or refresh token, a password, a code) is not valid; for a signed-in call, sign in again or renew the pair with POST /api/auth/refresh.',
  '403': 'Not allowed, as the description says.',
  '404': 'Not found for this caller, or the feature is off on this server.',
  '408':
    'The request took over 30 seconds to arrive; answered by the HTTP layer, which then closes the connection.',
  '409': 'Conflicts with the state of the account, as the description says; nothing changed.',
  '413': 'The body is over the limit (256 KB); nothing was read.',
  '414': 'A path parameter is longer than the router takes (255 characters).',
  '415':
    'The body is not of a type the call takes (`Content-Type: application/json`), or its Content-Encoding is not one the server decodes.',
  '429': 'Too many attempts: the call may be repeated after the seconds in Retry-After.',
  '431':
    "The request's headers are over 16 KB; answered by the HTTP layer, which then closes the connection.",
  '502': 'A provider (Stripe, Apple) refused or failed the call made for this one.',
  '503':
    'The database or a provider does not answer for a moment: repeat the call after the seconds in Retry-After.',
};

// Each header below is `required`: the answer always carries it (the fuzz holds the server to it).
const RETRY_AFTER = {
  description: 'Seconds to wait before repeating the call.',
  required: true,
  schema: { type: 'integer', minimum: 0 },
} as const;

const CONNECTION_CLOSE = {
  description: '`close`: the server ends the connection after this answer.',
  required: true,
  schema: { type: 'string', const: 'close' },
} as const;

/** Answered by Node's HTTP parser before any route, so for every operation alike. */
const ANSWERED_BY_THE_HTTP_LAYER = ['408', '431'];

const LOCATION = {
  description: 'Where to go.',
  required: true,
  schema: { type: 'string' },
} as const;

/** The document fastify-swagger generated, finished from the contract. */
export function finishDocument(document: OpenApiDocument): OpenApiDocument {
  const calls = new Map<string, Endpoint>(Object.entries(endpoints));
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem)) {
      const call = operation.operationId ? calls.get(operation.operationId) : undefined;
      describeResponses(operation, call);
      if (!call) continue;
      if (call.signedBody) declareSignedBody(operation, call.signedBody);
      addExamples(operation, call);
    }
  }
  return tidyComponents(document);
}

function describeResponses(operation: Operation, call: Endpoint | undefined): void {
  for (const status of ANSWERED_BY_THE_HTTP_LAYER) {
    operation.responses[status] ??= {
      description: '',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  for (const [status, response] of Object.entries(operation.responses)) {
    if (status.startsWith('2')) {
      response.description = call?.summary ?? response.description;
      for (const [name, meaning] of Object.entries(call?.successHeaders ?? {})) {
        headersOf(response)[name] = {
          description: meaning,
          required: true,
          schema: { type: 'string' },
        };
      }
    } else if (status.startsWith('3')) {
      response.description = 'A redirect to the page in Location.';
      headersOf(response).Location = LOCATION;
    } else {
      response.description = STATUS_MEANINGS[status] ?? response.description;
      if (status === '429' || status === '503') headersOf(response)['Retry-After'] = RETRY_AFTER;
      if (ANSWERED_BY_THE_HTTP_LAYER.includes(status))
        headersOf(response).Connection = CONNECTION_CLOSE;
    }
  }
}

function headersOf(response: Response): NonNullable<Response['headers']> {
  response.headers ??= {};
  return response.headers;
}

/** Stripe's webhook reads raw bytes (a signature covers them): its body and header, described. */
function declareSignedBody(operation: Operation, signed: NonNullable<Endpoint['signedBody']>) {
  operation.parameters = [
    ...(operation.parameters ?? []),
    {
      in: 'header',
      name: signed.signatureHeader,
      required: true,
      description: signed.description,
      schema: { type: 'string' },
    },
  ];
  operation.requestBody = {
    required: true,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/StripeEvent' } } },
  };
}

function addExamples(operation: Operation, call: Endpoint): void {
  const example = callExamples[call.operationId as keyof typeof callExamples] as
    | (Record<'params' | 'query', Record<string, unknown> | undefined> & {
        body?: unknown;
        signedBody?: unknown;
        signature?: string;
        response: unknown;
      })
    | undefined;
  if (!example) return;
  for (const parameter of operation.parameters ?? []) {
    const values = parameterValues(example, parameter);
    if (values && parameter.name in values) parameter.example = values[parameter.name];
  }
  const sent = example.signedBody ?? example.body;
  const requestMedia = operation.requestBody?.content['application/json'];
  if (requestMedia && sent !== undefined) requestMedia.example = sent;
  const answerMedia =
    operation.responses[String(call.successStatus)]?.content?.['application/json'];
  if (answerMedia) answerMedia.example = example.response;
}

function parameterValues(
  example: Record<'params' | 'query', Record<string, unknown> | undefined> & {
    signature?: string;
  },
  parameter: Parameter,
): Record<string, unknown> | undefined {
  if (parameter.in === 'path') return example.params;
  if (parameter.in === 'query') return example.query;
  // The one header a call declares is a provider's signature (Stripe-Signature).
  if (parameter.in === 'header') return { [parameter.name]: example.signature };
  return undefined;
}
