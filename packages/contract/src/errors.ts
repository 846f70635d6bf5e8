import * as z from 'zod/mini';

/** One problem of a request's input and the field it is about. */
export const FieldProblemSchema = z.object({
  /**
   * Where the problem is, as the request spells it: a body's key (`newPassword`), its dotted path
   * when nested (`device.name`), a query or path parameter's name; `body`, `query` or `params`
   * when the problem is the whole part (a body that is not an object).
   */
  field: z.string(),
  /** One of the texts of `message`. */
  message: z.string(),
});
export type FieldProblem = z.infer<typeof FieldProblemSchema>;

/**
 * The one error shape of the API. `message` is a string, or an array of strings with one entry
 * per field problem (validation errors); the web client joins arrays with newlines. A validation
 * error also lists each problem with its field in `fields`, so a client can put each message under
 * its input.
 */
export const ErrorBodySchema = z.object({
  statusCode: z.number().check(z.int()),
  error: z.string(),
  message: z.union([z.string(), z.array(z.string())]),
  fields: z.optional(z.array(FieldProblemSchema)),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** A plain acknowledgement, for calls that have nothing else to answer. */
export const AcknowledgementSchema = z.object({ message: z.string() });
export type Acknowledgement = z.infer<typeof AcknowledgementSchema>;

export const HealthSchema = z.object({ status: z.literal('ok') });
export type Health = z.infer<typeof HealthSchema>;
