// What breaks an otherwise well-formed request of an operation: at most one thing per request,
// so that an answer can be traced to it (a field's type or value, a missing or extra field, the
// body's type, size, syntax or media type, odd headers, a bad path segment or parameter).
import fc from 'fast-check';

import type { Operation } from './openapi-document';
import {
  badPathSegment,
  brokenJson,
  headerProbe,
  type HeaderProbe,
  hugeJsonBody,
  WRONG_CONTENT_TYPES,
} from './request-probes';
import { anyJsonValue, hostileString } from './schema-values';

/** One thing broken in an otherwise well-formed request. */
export type Breakage =
  | { probe: 'valid' }
  | { probe: 'wrong type' | 'hostile string'; field: number; value: unknown }
  | { probe: 'missing field'; field: number }
  | { probe: 'extra field'; key: string; value: unknown }
  | { probe: 'body of another type'; value: unknown }
  | { probe: 'huge body'; text: string }
  | { probe: 'broken JSON'; cut: (validJson: string) => fc.Arbitrary<string> }
  | { probe: 'wrong Content-Type'; contentType: string }
  | { probe: 'empty body'; contentType?: string }
  | { probe: 'odd headers'; headers: HeaderProbe }
  | { probe: 'bad path parameter'; field: number; segment: string }
  | { probe: 'hostile parameter'; field: number; value: unknown }
  | { probe: 'bad query'; query: string };

/** What can be wrong with a body: its fields, its type, its size, its syntax, its media type. */
function bodyBreakages(): Array<{ weight: number; arbitrary: fc.Arbitrary<Breakage> }> {
  const field = fc.nat({ max: 50 });
  return [
    {
      weight: 3,
      arbitrary: fc.record({
        probe: fc.constant('wrong type' as const),
        field,
        value: anyJsonValue(),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        probe: fc.constant('hostile string' as const),
        field,
        value: hostileString(),
      }),
    },
    { weight: 2, arbitrary: fc.record({ probe: fc.constant('missing field' as const), field }) },
    {
      weight: 2,
      arbitrary: fc.record({
        probe: fc.constant('extra field' as const),
        key: fc.oneof(
          fc.string({ maxLength: 12 }),
          fc.constantFrom('__proto__', 'constructor', 'isAdmin', 'role'),
        ),
        value: anyJsonValue(),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        probe: fc.constant('body of another type' as const),
        value: anyJsonValue(),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ probe: fc.constant('huge body' as const), text: hugeJsonBody() }),
    },
    { weight: 2, arbitrary: fc.constant({ probe: 'broken JSON' as const, cut: brokenJson }) },
    {
      weight: 2,
      arbitrary: fc.record({
        probe: fc.constant('wrong Content-Type' as const),
        contentType: fc.constantFrom(...WRONG_CONTENT_TYPES),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        probe: fc.constant('empty body' as const),
        contentType: fc.constantFrom('application/json', undefined),
      }),
    },
  ];
}

export function breakage(operation: Operation): fc.Arbitrary<Breakage> {
  const field = fc.nat({ max: 50 });
  const hasBody = operation.bodySchema !== undefined || operation.method !== 'GET';
  const hasPathParameter = operation.parameters.some((parameter) => parameter.in === 'path');
  const cases: Array<{ weight: number; arbitrary: fc.Arbitrary<Breakage> }> = [
    { weight: 8, arbitrary: fc.constant({ probe: 'valid' as const }) },
    {
      weight: 2,
      arbitrary: fc.record({ probe: fc.constant('odd headers' as const), headers: headerProbe() }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        probe: fc.constant('bad query' as const),
        query: fc.constantFrom(
          '%',
          '%zz',
          'a=%E0%A4%A',
          '&&&',
          'x[]=1&x[y]=2',
          `q=${'q'.repeat(20_000)}`,
        ),
      }),
    },
  ];
  if (hasBody) cases.push(...bodyBreakages());
  if (operation.parameters.some(({ in: place }) => place === 'path' || place === 'query')) {
    cases.push({
      weight: 3,
      arbitrary: fc.record({
        probe: fc.constant('hostile parameter' as const),
        field,
        value: fc.oneof(hostileString(), anyJsonValue()),
      }),
    });
  }
  if (hasPathParameter) {
    cases.push({
      weight: 3,
      arbitrary: fc.record({
        probe: fc.constant('bad path parameter' as const),
        field,
        segment: badPathSegment(),
      }),
    });
  }
  return fc.oneof(...cases);
}
