import { type Endpoint, type EndpointName, endpoints } from '@kegel/contract';
import { expect } from 'vitest';
import * as z from 'zod/mini';

/**
 * What a call of either generated client resolves to: hey-api's SDK (its default, non-throwing
 * style) and openapi-fetch both answer `{ data, error, response }`.
 */
interface CallResult<TData, TError> {
  data?: TData;
  error?: TError;
  response: Response;
}

/** The body of a successful answer; a failure throws with the status and body the server sent. */
export function answered<TData, TError>({
  data,
  error,
  response,
}: CallResult<TData, TError>): TData {
  if (data === undefined) {
    throw new Error(`answered ${response.status}: ${JSON.stringify(error)}`);
  }
  return data;
}

/**
 * The answer is one the contract describes for `call`: its status is declared there, and its body
 * (the data of a success, the error of a refusal) is valid against that status's schema. The
 * document the client was generated from is made from the same contract; this holds the server to
 * it through a client nobody here wrote.
 */
export function expectAsContractSays<TData, TError>(
  call: EndpointName,
  { data, error, response }: CallResult<TData, TError>,
): void {
  const endpoint: Endpoint = endpoints[call];
  const responses = new Map(
    Object.entries(endpoint.responses).map(([status, schema]) => [Number(status), schema]),
  );
  expect([...responses.keys()], `${call} answered ${response.status}`).toContain(response.status);
  const schema = responses.get(response.status);
  const body: unknown = data ?? error;
  const parsed = schema ? z.safeParse(schema, body) : undefined;
  expect(parsed?.error?.issues ?? [], `${call}'s ${response.status} body`).toEqual([]);
}
