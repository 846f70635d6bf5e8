// fast-check arbitraries derived from a JSON schema of the document: values the schema allows,
// with its boundaries (lengths min, max and max+1, numbers at and past their limits), and the
// values no schema should have to meet (wrong types, hostile strings). A value meant to be valid
// need not always be: only the server's answer is checked, and a near miss is a good probe too.
import fc from 'fast-check';

import { dereference, type JsonSchema, type OpenApiDocument } from './openapi-document';

/** Over the server's 256 KB body limit once sent. */
export const HUGE_STRING_LENGTH = 300 * 1024;

/** Characters a parser, a database or a log has tripped over somewhere. */
const AWKWARD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'nul\u0000inside',
  '\u0001\u0008\u001b[31m\u007f',
  '\r\nSet-Cookie: x=1',
  '\t\n\v\f\r',
  '\u202eevil\u202c', // right-to-left override
  'שלום עולם', // right-to-left script
  'مرحبا',
  'e\u0301\u0302\u0303\u0304\u0305\u0306\u0307', // stacked combining marks
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
  '👨‍👩‍👧‍👦🏳️‍🌈𝕳𝖊𝖑𝖑𝖔', // astral plane, ZWJ sequences
  '\ud800', // a lone surrogate
  '\ufeffBOM',
  '\u200b\u200c\u200d\u2060',
  "' OR '1'='1' --",
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '%00%ff%',
  '${jndi:ldap://x}',
  '__proto__',
  'constructor',
  '0',
  '-1',
  'NaN',
  'null',
  'true',
  '9'.repeat(400),
  '1e309',
];

/** Strings nobody means: control and NUL characters, Unicode of every plane, hostile text. */
export function hostileString(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...AWKWARD_STRINGS) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    {
      weight: 1,
      arbitrary: fc.string({ unit: fc.constantFrom('\u0000', '\u001f', 'a'), maxLength: 20 }),
    },
    { weight: 1, arbitrary: fc.constant('ü'.repeat(20_000)) },
    { weight: 1, arbitrary: fc.constant('𝔘'.repeat(HUGE_STRING_LENGTH / 4)) },
  );
}

/** A value of any JSON type: the wrong type for most fields. */
export function anyJsonValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(0, -1, 2 ** 53, -(2 ** 63), 1e308, true, false, null),
    hostileString(),
    fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 4 }),
  );
}

function schemaTypes(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties) return ['object'];
  return [];
}

function stringOfLength(length: number, format: unknown): string {
  if (format === 'email') {
    const local = 'a'.repeat(Math.max(1, length - '@example.com'.length));
    return `${local}@example.com`.slice(-Math.max(length, 0)) || '';
  }
  return 'x'.repeat(Math.max(length, 0));
}

function stringValue(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
  const typical = ((): fc.Arbitrary<string> => {
    switch (schema.format) {
      case 'email':
        return fc.emailAddress();
      case 'uuid':
        return fc.uuid({ version: 4 });
      case 'date-time':
        return fc
          .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
          .map((date) => date.toISOString());
      case 'uri':
        return fc.webUrl();
    }
    if (typeof schema.pattern === 'string') {
      try {
        return fc.stringMatching(new RegExp(schema.pattern));
      } catch {
        // A pattern JavaScript's engine or fast-check cannot read: plain strings instead.
      }
    }
    return fc.string({
      minLength,
      maxLength: Math.min(maxLength ?? minLength + 40, minLength + 40),
    });
  })();
  const boundaries = [minLength, Math.max(minLength - 1, 0)];
  if (maxLength !== undefined) boundaries.push(maxLength, maxLength + 1);
  return fc.oneof(
    { weight: 6, arbitrary: typical },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(...boundaries)
        .map((length) => stringOfLength(length, schema.format)),
    },
  );
}

function numberValue(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const bound = (key: string) => (typeof schema[key] === 'number' ? schema[key] : undefined);
  const min = bound('minimum') ?? (bound('exclusiveMinimum') ?? -1e6 - 1) + 1;
  const max = bound('maximum') ?? (bound('exclusiveMaximum') ?? 1e6 + 1) - 1;
  const low = Math.max(min, -1e9);
  const high = Math.min(max, 1e9);
  const typical = integer
    ? fc.integer({ min: Math.ceil(low), max: Math.floor(high) })
    : fc.double({ min: low, max: high, noNaN: true });
  return fc.oneof(
    { weight: 4, arbitrary: typical },
    { weight: 1, arbitrary: fc.constantFrom(min, max, min - 1, max + 1, 0, integer ? 1.5 : 1e-9) },
  );
}

/** Values of `schema` (its `$ref`s resolved in the document), boundaries included. */
export function schemaValue(
  document: OpenApiDocument,
  rawSchema: JsonSchema,
  depth = 0,
): fc.Arbitrary<unknown> {
  const schema = dereference(document, rawSchema);
  if (depth > 6) return fc.constant(null);
  const nested = (inner: unknown) => schemaValue(document, inner as JsonSchema, depth + 1);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (alternatives?.length) return fc.oneof(...alternatives.map(nested));
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return nested(
      Object.assign(
        {},
        ...(schema.allOf as JsonSchema[]).map((part) => dereference(document, part)),
      ),
    );
  }
  const types = schemaTypes(schema);
  if (types.length > 1) return fc.oneof(...types.map((type) => nested({ ...schema, type })));
  switch (types[0]) {
    case 'string':
      return stringValue(schema);
    case 'integer':
      return numberValue(schema, true);
    case 'number':
      return numberValue(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(nested(schema.items ?? {}), {
        minLength: typeof schema.minItems === 'number' ? schema.minItems : 0,
        maxLength: Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 4, 4),
      });
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, unknown>;
      const required = ((schema.required ?? []) as string[]).filter((key) => key in properties);
      return fc.record(
        Object.fromEntries(Object.entries(properties).map(([key, inner]) => [key, nested(inner)])),
        { requiredKeys: required },
      );
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
