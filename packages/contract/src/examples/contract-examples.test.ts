// Every call's example holds to its call's own schemas, beyond what the compiler sees of them:
// formats (dates, URLs, UUIDs), lengths, patterns and refinements. The API document shows these
// examples and the tests send them, so one that the server would refuse must fail here first.
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import type * as core from 'zod/v4/core';

import type { Endpoint } from '../endpoint';
import { endpoints } from '../endpoints';
import { callExamples } from './index';

/** Stripe-Signature as Stripe writes it: https://docs.stripe.com/webhooks#verify-manually */
const STRIPE_SIGNATURE = z.string().check(z.regex(/^t=\d+,v1=[0-9a-f]{64}$/));

/** Each part of an example, with the schema of its call that must accept it. */
function partsOf(endpoint: Endpoint, example: Record<string, unknown>) {
  const parts: { part: string; schema: core.$ZodType | undefined; value: unknown }[] = [
    { part: 'params', schema: endpoint.params, value: example.params },
    { part: 'query', schema: endpoint.query, value: example.query },
    { part: 'body', schema: endpoint.body, value: example.body },
    { part: 'signedBody', schema: endpoint.signedBody?.schema, value: example.signedBody },
    {
      part: 'signature',
      schema: endpoint.signedBody && STRIPE_SIGNATURE,
      value: example.signature,
    },
    {
      part: `response (${endpoint.successStatus})`,
      schema: endpoint.success[endpoint.successStatus],
      value: example.response,
    },
  ];
  return parts;
}

/** What a schema finds wrong with a value, one line per issue; empty when it accepts it. */
function problemsOf(schema: core.$ZodType, value: unknown): string[] {
  const result = z.safeParse(schema, value);
  if (result.success) return [];
  return result.error.issues.map((issue) => {
    const field = issue.path.map(String).join('.') || '(the whole value)';
    return `${field}: ${issue.message} (${whatIsWrong(issue)})`;
  });
}

/**
 * The issue's kind, with what was expected: zod/mini loads no messages of its own, so a check
 * without one says only "Invalid input".
 */
function whatIsWrong(issue: core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_format':
      // A built-in format's own pattern is long and says nothing more than its name.
      return issue.format === 'regex'
        ? `not matching ${String(issue.pattern)}`
        : `not a valid ${issue.format}`;
    case 'invalid_type':
      return `expected ${issue.expected}`;
    case 'too_big':
      return `at most ${String(issue.maximum)}`;
    case 'too_small':
      return `at least ${String(issue.minimum)}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map(String).join(', ')}`;
    default:
      return issue.code;
  }
}

const calls = Object.entries(endpoints) as [keyof typeof endpoints, Endpoint][];

describe('the examples of the contract', () => {
  it('has one for every call, and none for a call that does not exist', () => {
    expect(Object.keys(callExamples).sort()).toEqual(Object.keys(endpoints).sort());
  });

  it.each(calls)('%s: each part of its example is valid against its own schema', (name, call) => {
    const example = callExamples[name] as Record<string, unknown>;
    const problems: string[] = [];
    for (const { part, schema, value } of partsOf(call, example)) {
      if (schema) {
        problems.push(...problemsOf(schema, value).map((problem) => `${part}: ${problem}`));
      } else if (value !== undefined) {
        // A part the call does not take: the example would send (or promise) what nobody reads.
        problems.push(`${part}: the call takes none, but the example has one`);
      }
    }
    // One line per problem, the part and field first: the failure names all of them in full.
    expect(problems.join('\n'), `${name}'s example`).toBe('');
  });
});
