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

/** PostgreSQL's unique_violation, from node-postgres and PGlite alike. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === '23505';
}

/** The 401 for a token or session that no longer works; the web app then goes to login. */
export const SESSION_ENDED_MESSAGE = 'Your session has ended. Please sign in again.';
