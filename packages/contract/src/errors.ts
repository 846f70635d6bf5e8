import * as z from 'zod/mini';

/**
 * The one error shape of the API. `message` is a string, or an array of strings with one entry
 * per field problem (validation errors); the web client joins arrays with newlines.
 */
export const ErrorBodySchema = z.object({
  statusCode: z.number().check(z.int()),
  error: z.string(),
  message: z.union([z.string(), z.array(z.string())]),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** A plain acknowledgement, for calls that have nothing else to answer. */
export const AcknowledgementSchema = z.object({ message: z.string() });
export type Acknowledgement = z.infer<typeof AcknowledgementSchema>;

export const HealthSchema = z.object({ status: z.literal('ok') });
export type Health = z.infer<typeof HealthSchema>;
