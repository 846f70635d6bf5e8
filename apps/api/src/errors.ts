/**
 * A problem the caller can act on, answered with its status and message in the error shape
 * (plugins/error-handler.ts). Services throw it; they never touch HTTP otherwise.
 */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/**
 * An outside provider's API (Stripe) refused or failed a call of ours. Never the caller's doing:
 * its status and text are the provider's to us, not ours to the caller (a Stripe 401 is about our
 * API key, not the caller's session), so it is logged and answered 502, or 503 when a moment may
 * cure it (plugins/error-handler.ts).
 */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    /** Rate limited, unreachable, or the provider's own 5xx: worth trying again soon. */
    readonly isTemporary: boolean,
    cause: unknown,
  ) {
    super(`${provider} failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'ProviderError';
  }
}

/** PostgreSQL's unique_violation, from node-postgres and PGlite alike. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === '23505';
}

/** The 401 for a token or session that no longer works; the web app then goes to login. */
export { SESSION_ENDED_MESSAGE } from '@kegel/contract';

/** One problem of a request's input, with the field it is about (the error shape's `fields`). */
export interface FieldProblem {
  /** The field's dotted path in the body, query or path parameters; the part's name for all of it. */
  field: string;
  message: string;
}

/** A request the contract's schemas refused: a 400 naming each problem's field. */
export class RequestValidationError extends Error {
  readonly statusCode = 400;
  constructor(readonly fields: readonly FieldProblem[]) {
    super(fields.map(({ field, message }) => `${field}: ${message}`).join('; '));
    this.name = 'RequestValidationError';
  }
}
