// The named shapes of the API document, kept to those it uses, under their plain names.
//
// The schema transform writes every named shape twice, as the answer it is (`Profile`) and as the
// input a client sends (`ProfileInput`, which may differ: defaults, trimming), whether or not any
// call uses it. A generated client would carry both, and most inputs are only ever inputs. So an
// input is renamed to the plain name when nothing uses that name as an answer, or when the two are
// the same shape; and whatever no call reaches is dropped.

export interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  description?: string;
  schema: unknown;
  example?: unknown;
}
export interface MediaType {
  schema: unknown;
  example?: unknown;
}
export interface Response {
  description: string;
  headers?: Record<string, { description: string; required?: boolean; schema: unknown }>;
  content?: Record<string, MediaType>;
}
export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, Response>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown>; [kind: string]: unknown };
  [key: string]: unknown;
}

const SCHEMA_REF = '#/components/schemas/';
const INPUT_SUFFIX = 'Input';

export function tidyComponents(document: OpenApiDocument): OpenApiDocument {
  const schemas = document.components?.schemas;
  if (!schemas) return document;
  const used = namesReached(document, schemas);
  const renames = new Map<string, string>();
  for (const name of used) {
    if (!name.endsWith(INPUT_SUFFIX)) continue;
    const plain = name.slice(0, -INPUT_SUFFIX.length);
    const sameShape = JSON.stringify(schemas[plain]) === JSON.stringify(schemas[name]);
    if (!used.has(plain) || sameShape) renames.set(name, plain);
  }
  const renamed = withRefsRenamed(document, renames) as OpenApiDocument;
  const renamedSchemas = { ...renamed.components?.schemas };
  for (const [from, to] of renames) {
    if (!used.has(to)) renamedSchemas[to] = renamedSchemas[from];
  }
  const reached = namesReached(renamed, renamedSchemas);
  renamed.components = { ...renamed.components };
  renamed.components.schemas = Object.fromEntries(
    Object.entries(renamedSchemas)
      .filter(([name]) => reached.has(name))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  return renamed;
}

/** The shapes the document's paths refer to, directly or through other shapes. */
function namesReached(document: OpenApiDocument, schemas: Record<string, unknown>): Set<string> {
  const reached = new Set<string>();
  const pending = refsIn({ ...document, components: { ...document.components, schemas: {} } });
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (reached.has(name)) continue;
    reached.add(name);
    pending.push(...refsIn(schemas[name]));
  }
  return reached;
}

function refsIn(value: unknown): string[] {
  const names: string[] = [];
  JSON.stringify(value, (key, child: unknown) => {
    if (key === '$ref' && typeof child === 'string' && child.startsWith(SCHEMA_REF)) {
      names.push(child.slice(SCHEMA_REF.length));
    }
    return child;
  });
  return names;
}

function withRefsRenamed(value: unknown, renames: ReadonlyMap<string, string>): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, child: unknown) => {
      if (key !== '$ref' || typeof child !== 'string' || !child.startsWith(SCHEMA_REF)) {
        return child;
      }
      const to = renames.get(child.slice(SCHEMA_REF.length));
      return to ? SCHEMA_REF + to : child;
    }),
  );
}
