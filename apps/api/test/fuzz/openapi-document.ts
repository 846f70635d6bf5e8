// The served API document, read as a fuzzer reads it: its operations with their parameters,
// request body and declared answers. Everything the fuzz sends and expects comes from here (not
// from the contract), so the fuzz tests the document a mobile team builds against.

export type JsonSchema = Record<string, unknown>;

export interface DeclaredAnswer {
  /** The JSON schema of the body, when the answer declares an application/json one. */
  schema?: JsonSchema;
  /** Headers the answer must carry (`required: true` in the document). */
  requiredHeaders: string[];
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  operationId: string;
  method: string;
  /** The path as the document spells it: `/api/users/passkeys/{id}`. */
  pathTemplate: string;
  parameters: Parameter[];
  /** The JSON body's schema, if the operation declares one. */
  bodySchema?: JsonSchema;
  bodyRequired: boolean;
  /** Signed-in: the operation's security names a scheme. */
  signedIn: boolean;
  answers: Map<string, DeclaredAnswer>;
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components?: Record<string, Record<string, unknown>>;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The object a local `$ref` (`#/components/...`) points at, followed until it is no `$ref`. */
export function dereference<T>(document: OpenApiDocument, value: T): T {
  let current: unknown = value;
  for (let hops = 0; hops < 20; hops += 1) {
    const ref = (current as { $ref?: unknown } | null)?.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return current as T;
    current = ref
      .slice(2)
      .split('/')
      .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>(
        (node, key) => (node as Record<string, unknown> | undefined)?.[key],
        document,
      );
  }
  throw new Error(`a $ref cycle of references (not schemas) at ${JSON.stringify(value)}`);
}

function jsonContentSchema(document: OpenApiDocument, content: unknown): JsonSchema | undefined {
  if (!content || typeof content !== 'object') return undefined;
  const entry = Object.entries(content as Record<string, { schema?: JsonSchema }>).find(
    ([mediaType]) => /^application\/(?:[\w.+-]+\+)?json\b/.test(mediaType),
  );
  return entry?.[1].schema ? dereference(document, entry[1].schema) : undefined;
}

export function declaredAnswer(document: OpenApiDocument, response: unknown): DeclaredAnswer {
  const resolved = dereference(document, response) as {
    content?: unknown;
    headers?: Record<string, { required?: boolean }>;
  };
  return {
    schema: jsonContentSchema(document, resolved.content),
    requiredHeaders: Object.entries(resolved.headers ?? {})
      .filter(([, header]) => dereference(document, header).required === true)
      .map(([name]) => name.toLowerCase()),
  };
}

/** Every operation of the document, in its order. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [pathTemplate, pathItem] of Object.entries(document.paths)) {
    const shared = (pathItem.parameters as unknown[] | undefined) ?? [];
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!operation) continue;
      const parameters = [...shared, ...((operation.parameters as unknown[] | undefined) ?? [])]
        .map((parameter) => dereference(document, parameter) as Parameter)
        .map((parameter) => ({
          ...parameter,
          required: parameter.required === true || parameter.in === 'path',
          schema: dereference(document, parameter.schema ?? {}),
        }));
      const requestBody = dereference(document, operation.requestBody) as
        { required?: boolean; content?: unknown } | undefined;
      const security = (operation.security ?? []) as Array<Record<string, unknown>>;
      operations.push({
        operationId:
          typeof operation.operationId === 'string'
            ? operation.operationId
            : `${method} ${pathTemplate}`,
        method: method.toUpperCase(),
        pathTemplate,
        parameters,
        bodySchema: jsonContentSchema(document, requestBody?.content),
        bodyRequired: requestBody?.required === true,
        signedIn: security.some((requirement) => Object.keys(requirement).length > 0),
        answers: new Map(
          Object.entries((operation.responses ?? {}) as Record<string, unknown>).map(
            ([status, response]) => [status, declaredAnswer(document, response)],
          ),
        ),
      });
    }
  }
  return operations;
}

/** The methods the document declares on each path. */
export function methodsByPath(operations: Operation[]): Map<string, Set<string>> {
  const methods = new Map<string, Set<string>>();
  for (const { pathTemplate, method } of operations) {
    methods.set(pathTemplate, new Set([...(methods.get(pathTemplate) ?? []), method]));
  }
  return methods;
}
