// Requests are validated with the contract's zod schemas (as fastify-type-provider-zod's compiler
// does), and every problem is answered with the field it is about: `fields` in the error shape
// (`{ field: 'newPassword', message: '…' }`), so a client can put the message under its input.
//
// The contract's own texts ('Email is required', 'Password is too short') are the spec's and pass
// unchanged. The texts that say nothing of their field are worded with it, one way for all:
// - a field that is missing, or the contract's bare 'Required': `newPassword is required`;
// - any other text of zod's own: `clientType: Invalid input: expected "WEB"`.
// The field is spelled as the request spells it (the body's key, its dotted path when nested:
// `device.name`), and as `body`, `query` or `params` for the whole part, so a developer finds it
// in the API document without guessing what a label refers to.
import { fieldMessages } from '@kegel/contract';
import type { FastifySchemaCompiler } from 'fastify';
import * as z from 'zod/mini';
import type * as zc from 'zod/v4/core';
// English alone, not `z.locales.en`: naming the namespace would bring zod's every language into
// the server's bundle (build.mjs inlines zod for its tree-shaking).
import englishZodTexts from 'zod/v4/locales/en.js';

import { RequestValidationError, type FieldProblem } from '../errors';

/** Fastify's names of a request's parts, as the error names them. */
const PART_NAMES: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'params',
  headers: 'headers',
};

const zodTexts = englishZodTexts().localeError;

function fieldOf(path: readonly PropertyKey[], part: string): string {
  return path.length === 0 ? part : path.map(String).join('.');
}

/** In English; the error handler words it in the caller's language (messages `api.fieldRequired`). */
export function requiredMessage(field: string): string {
  return `${field} is required`;
}

/** zod's own text for a problem no schema worded, with its field named. */
function namedZodText(part: string): zc.$ZodErrorMap {
  return function nameTheField(issue) {
    const field = fieldOf(issue.path ?? [], part);
    if (issue.code === 'invalid_type' && issue.input === undefined) return requiredMessage(field);
    const text = zodTexts(issue);
    const message = typeof text === 'string' ? text : (text?.message ?? 'Invalid input');
    return `${field}: ${message}`;
  };
}

export function fieldProblemsOf(issues: readonly zc.$ZodIssue[], part: string): FieldProblem[] {
  return issues.map((issue) => {
    const field = fieldOf(issue.path, part);
    // The contract's generic word, from a schema that could not know its field's name.
    const message =
      issue.message === fieldMessages.required ? requiredMessage(field) : issue.message;
    return { field, message };
  });
}

/** Fastify's validator compiler: the contract's schema, and its problems named by field. */
export const validatorCompiler: FastifySchemaCompiler<zc.$ZodType> = ({ schema, httpPart }) => {
  const part = PART_NAMES[httpPart ?? 'body'] ?? 'body';
  const error = namedZodText(part);
  return function validate(data: unknown) {
    const result = z.safeParse(schema, data, { error });
    if (result.success) return { value: result.data };
    return { error: new RequestValidationError(fieldProblemsOf(result.error.issues, part)) };
  };
};
