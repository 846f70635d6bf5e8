// The App Store sandbox's notification history: every notification it signs is kept, delivered
// or not (an action with `{ deliver: false }` is a delivery the network lost), with the result of
// each attempt to send it, and the App Store Server API's Get Notification History answers from
// it as Apple does (`POST /inApps/v1/notifications/history?paginationToken=…`):
//
// - the same ES256 bearer token as every call (app-store-server-api.ts), else 401;
// - a body `{ startDate, endDate, notificationType?, notificationSubtype?, onlyFailures? }` in
//   milliseconds, startDate no further back than Apple keeps history (180 days), else 400 with
//   Apple's error code;
// - `{ notificationHistory: [{ signedPayload, sendAttempts }], hasMore, paginationToken }`, at
//   most 20 records a page, oldest first, of those first sent within the window; a page after
//   the first is asked for with the token of the one before and the same body (another body, or
//   a token it never gave, is refused).
//
// `failRequests(n, { after })` makes n calls answer 500, as Apple does on a bad day, after
// answering `after` more first (a failure in the middle of a walk through the pages).
import { randomUUID } from 'node:crypto';

import { isValidBearerToken, type ServerApiKey } from './app-store-server-api';
import { readBody } from './loopback-http';
import { type Exchange, sendText } from './route-table';

/** Apple's page size for Get Notification History. */
export const NOTIFICATION_HISTORY_PAGE_SIZE = 20;
const KEPT_MS = 180 * 24 * 60 * 60 * 1000;
/** Apple's error codes for this call (APIError of @apple/app-store-server-library). */
const ERRORS = {
  startTooFarInPast: 4000012,
  startAfterEnd: 4000013,
  invalidPaginationToken: 4000014,
  invalidStartDate: 4000015,
  invalidEndDate: 4000016,
};

export type SendAttemptResult = 'SUCCESS' | 'NO_RESPONSE' | 'UNSUCCESSFUL_HTTP_RESPONSE_CODE';

/** What Apple records of a send: the receiver's status, or undefined when it never answered. */
export function attemptResultOf(status: number | undefined): SendAttemptResult {
  if (status === undefined) return 'NO_RESPONSE';
  return status === 200 ? 'SUCCESS' : 'UNSUCCESSFUL_HTTP_RESPONSE_CODE';
}

interface KeptNotification {
  signedPayload: string;
  signedDate: number;
  notificationType: string;
  subtype: string | undefined;
  sendAttempts: Array<{ attemptDate: number; sendAttemptResult: SendAttemptResult }>;
}

interface HistoryRequest {
  startDate: number;
  endDate: number;
  notificationType?: string;
  notificationSubtype?: string;
  onlyFailures?: boolean;
}

export interface NotificationHistory {
  /** Keeps a notification the sandbox just signed. */
  keep(
    signedPayload: string,
    facts: { signedDate: number; notificationType: string; subtype: string | undefined },
  ): void;
  /** Records one attempt to send a kept notification, and how it went. */
  recordAttempt(signedPayload: string, result: SendAttemptResult): void;
  /** `count` calls answer 500, once `after` more (0: none) are answered as usual. */
  failRequests(count: number, options?: { after?: number }): void;
  /** Get Notification History. */
  answer: (exchange: Exchange) => Promise<void>;
}

function sendError(exchange: Exchange, status: number, errorCode: number, errorMessage: string) {
  exchange.response.writeHead(status, { 'content-type': 'application/json' });
  exchange.response.end(JSON.stringify({ errorCode, errorMessage }));
}

/** The body, or the error Apple would answer for it. */
function parseRequest(text: string): HistoryRequest | [code: number, message: string] {
  let body: Partial<HistoryRequest>;
  try {
    body = JSON.parse(text) as Partial<HistoryRequest>;
  } catch {
    return [ERRORS.invalidStartDate, 'Invalid request body.'];
  }
  const { startDate, endDate } = body;
  if (typeof startDate !== 'number') return [ERRORS.invalidStartDate, 'Invalid start date.'];
  if (typeof endDate !== 'number') return [ERRORS.invalidEndDate, 'Invalid end date.'];
  if (startDate > endDate) return [ERRORS.startAfterEnd, 'Start date is after end date.'];
  if (startDate < Date.now() - KEPT_MS)
    return [ERRORS.startTooFarInPast, 'Start date is too far in the past.'];
  return { ...body, startDate, endDate };
}

function matches(kept: KeptNotification, request: HistoryRequest): boolean {
  // Apple's window is when it tried to send (the sandbox's signing times may run a little ahead
  // of the clock, to keep them apart).
  const sentAt = kept.sendAttempts[0]?.attemptDate ?? kept.signedDate;
  if (sentAt < request.startDate || sentAt > request.endDate) return false;
  if (request.notificationType && kept.notificationType !== request.notificationType) return false;
  if (request.notificationSubtype && kept.subtype !== request.notificationSubtype) return false;
  if (request.onlyFailures)
    return !kept.sendAttempts.some((attempt) => attempt.sendAttemptResult === 'SUCCESS');
  return true;
}

export function createNotificationHistory(options: {
  serverApiKey: ServerApiKey;
  bundleId: string;
}): NotificationHistory {
  // Signing order, which is signedDate order: the sandbox signs each later than the last.
  const kept: KeptNotification[] = [];
  const byPayload = new Map<string, KeptNotification>();
  /** Each token given: the body it was given for, and where its page starts. */
  const tokens = new Map<string, { body: string; offset: number }>();
  let failures = { count: 0, after: 0 };

  async function answer(exchange: Exchange): Promise<void> {
    const { request, response, url } = exchange;
    if (
      !(await isValidBearerToken(
        request.headers.authorization,
        options.serverApiKey,
        options.bundleId,
      ))
    )
      return sendText(response, 401, 'Unauthenticated');
    const bodyText = await readBody(request);
    if (failures.count > 0 && failures.after === 0) {
      failures.count -= 1;
      return sendError(exchange, 500, 5000000, 'An unknown error occurred.');
    }
    if (failures.after > 0) failures.after -= 1;
    const parsed = parseRequest(bodyText);
    if (Array.isArray(parsed)) return sendError(exchange, 400, parsed[0], parsed[1]);
    const body = JSON.stringify(parsed);
    const token = url.searchParams.get('paginationToken');
    const resumed = token ? tokens.get(token) : undefined;
    if (token && resumed?.body !== body)
      return sendError(exchange, 400, ERRORS.invalidPaginationToken, 'Invalid pagination token.');
    const offset = resumed?.offset ?? 0;
    const found = kept.filter((each) => matches(each, parsed));
    const page = found.slice(offset, offset + NOTIFICATION_HISTORY_PAGE_SIZE);
    const hasMore = offset + page.length < found.length;
    // Apple gives a token with every answer; the sandbox's name the next page of this body.
    const nextToken = randomUUID();
    tokens.set(nextToken, { body, offset: offset + page.length });
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        notificationHistory: page.map(({ signedPayload, sendAttempts }) => ({
          signedPayload,
          sendAttempts,
        })),
        hasMore,
        paginationToken: nextToken,
      }),
    );
  }

  return {
    keep(signedPayload, facts) {
      const notification = { signedPayload, ...facts, sendAttempts: [] };
      kept.push(notification);
      byPayload.set(signedPayload, notification);
    },
    recordAttempt(signedPayload, result) {
      byPayload.get(signedPayload)?.sendAttempts.push({
        attemptDate: Date.now(),
        sendAttemptResult: result,
      });
    },
    failRequests(count, options = {}) {
      failures = { count, after: options.after ?? 0 };
    },
    answer,
  };
}
