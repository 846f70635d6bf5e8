// The ways a request can go wrong that do not depend on a schema, as Schemathesis tries them:
// bodies that are not JSON, the wrong Content-Type, headers past Node's 16 KB, path segments that
// are too long or badly %-encoded, tokens that are not tokens.
import fc from 'fast-check';

import { HUGE_STRING_LENGTH } from './schema-values';

/** Media types a JSON call must refuse (415) or parse as JSON all the same. */
export const WRONG_CONTENT_TYPES = [
  'text/plain',
  'text/html; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
  'application/xml',
  'application/octet-stream',
  'application/json-patch+json',
  'application/jsonx',
  'application/json; charset=utf-16',
  'application/json;;;',
  'APPLICATION/JSON',
  'image/png',
  '*/*',
  'json',
];

/** Text that is not JSON, or JSON no call takes (a key twice, nesting 50,000 deep). */
export function brokenJson(validJson: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.nat({ max: Math.max(validJson.length - 1, 0) }).map((cut) => validJson.slice(0, cut)),
    fc.constantFrom(
      '{',
      '}',
      '[',
      '{"a":1,}',
      "{'a': 1}",
      '{"a":1}{"b":2}',
      `${validJson}garbage`,
      `\ufeff${validJson}`,
      '{"a":"\u0000"}',
      '{"a":"\\u0000"}',
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"a":1,"a":2}',
      'NaN',
      'undefined',
      '"just a string"',
      '12345678901234567890123456789',
      '{"a":1e999999}',
      '['.repeat(50_000) + ']'.repeat(50_000),
      '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000),
      '\u0000\u0001\u0002',
    ),
  );
}

/** Path segments a router must refuse politely, sent as they are (not encoded again). */
export function badPathSegment(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      '%',
      '%zz',
      '%E0%A4%A',
      '%C0%AF',
      '%ED%A0%80',
      '%FF%FE',
      '%00',
      '%2F',
      '%2e%2e',
      '..',
      '.',
      '%25',
      'a%20b',
      '%F0%9F%92%A9',
    ),
    fc.integer({ min: 101, max: 400 }).map((length) => 'a'.repeat(length)),
    fc.constant('b'.repeat(5_000)),
    fc.constant('c'.repeat(20_000)),
  );
}

export type HeaderProbe = Record<string, string>;

/** Headers over Node's 16 KB limit, one long or many small; and odd but legal ones. */
export function headerProbe(): fc.Arbitrary<HeaderProbe> {
  return fc.oneof(
    fc.constant({ 'x-fuzz-padding': 'a'.repeat(17 * 1024) }),
    fc.constant(
      Object.fromEntries(
        Array.from({ length: 300 }, (_, index) => [`x-fuzz-${index}`, 'b'.repeat(60)]),
      ),
    ),
    fc.constant({ cookie: `session=${'c'.repeat(20 * 1024)}` }),
    fc.constant({ authorization: `Bearer ${'d'.repeat(17 * 1024)}` }),
    fc.constant({ 'x-fuzz-padding': 'e'.repeat(8 * 1024) }),
    fc.constant({ accept: 'application/xml' }),
    fc.constant({ accept: 'text/html;q=0.1, image/*' }),
    fc.constant({ 'accept-encoding': 'gzip, br, deflate' }),
    fc.constant({ 'x-forwarded-for': '1.2.3.4, not-an-ip, ::1' }),
    fc.constant({ 'content-encoding': 'gzip' }),
    fc.constant({ 'transfer-encoding': 'chunked' }),
    fc.constant({ expect: '100-continue' }),
  );
}

/** Authorization headers that carry no valid token (or none at all). */
export function garbageAuthorization(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(
      'Bearer',
      'Bearer ',
      'Bearer garbage',
      'Bearer a.b.c',
      // alg "none", sub of nobody
      'Bearer eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiIxIn0.',
      'Basic dXNlcjpwYXNz',
      'bearer lowercase',
      `Bearer ${'x'.repeat(4000)}`,
      'Token abc',
    ),
    fc
      .string({
        unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_.'),
        maxLength: 300,
      })
      .map((token) => `Bearer ${token}`),
  );
}

/** A body over the 256 KB limit, as JSON. */
export function hugeJsonBody(): fc.Arbitrary<string> {
  return fc
    .constantFrom('x', 'ü', '😀')
    .map((unit) =>
      JSON.stringify({ padding: unit.repeat(Math.ceil(HUGE_STRING_LENGTH / unit.length)) }),
    );
}
