// The refund-request side of the App Store sandbox: the CONSUMPTION_REQUEST notification Apple
// sends when a customer asks it for a refund, and the App Store Server API's answer to it, Send
// Consumption Information (`PUT /inApps/v2/transactions/consumption/{transactionId}`, the call
// that replaced the V1 one), checked as Apple checks it:
//
// - the bearer token as for every App Store Server API call (401 `Unauthenticated` otherwise);
// - a transaction id of digits that the sandbox made (400 InvalidTransactionIdError, 404
//   TransactionIdNotFoundError);
// - a ConsumptionRequest body: `customerConsented` exactly true (400 InvalidCustomerConsentedError:
//   Apple takes no answer without the customer's consent), `deliveryStatus` one of
//   DeliveryStatus, `sampleContentProvided` a boolean, `refundPreference` absent or one of
//   RefundPreference, `consumptionPercentage` an integer of milliunits 0…100000 and absent for an
//   auto-renewable subscription (Apple works the consumption of those out itself), and present
//   above 0 with GRANT_PRORATED for any other product;
// - 202 Accepted with no body when all is well.
//
// What it accepted is kept in order (`reports()`), and it can be told to answer the next calls
// 500, as Apple does on a bad day, so the server's retries can be tested.
import type { IncomingMessage, ServerResponse } from 'node:http';

import { readBody } from './loopback-http';
import { sendText } from './route-table';

/** The customer's reason for a refund request (data.consumptionRequestReason). */
export type ConsumptionRequestReason =
  'UNINTENDED_PURCHASE' | 'FULFILLMENT_ISSUE' | 'UNSATISFIED_WITH_PURCHASE' | 'LEGAL' | 'OTHER';

/** One Send Consumption Information call the sandbox accepted. */
export interface ConsumptionReport {
  transactionId: string;
  body: {
    customerConsented: true;
    deliveryStatus: string;
    sampleContentProvided: boolean;
    refundPreference?: string;
    consumptionPercentage?: number;
  };
  receivedAt: number;
}

const DELIVERY_STATUSES = new Set([
  'DELIVERED',
  'UNDELIVERED_QUALITY_ISSUE',
  'UNDELIVERED_WRONG_ITEM',
  'UNDELIVERED_SERVER_OUTAGE',
  'UNDELIVERED_OTHER',
]);
const REFUND_PREFERENCES = new Set(['DECLINE', 'GRANT_FULL', 'GRANT_PRORATED']);
const FIELDS = new Set([
  'customerConsented',
  'deliveryStatus',
  'sampleContentProvided',
  'refundPreference',
  'consumptionPercentage',
]);

/** Apple's error codes (APIError of @apple/app-store-server-library). */
const ERRORS = {
  invalidTransactionId: 4_000_006,
  invalidCustomerConsented: 4_000_035,
  invalidDeliveryStatus: 4_000_036,
  invalidSampleContentProvided: 4_000_041,
  transactionIdNotFound: 4_040_010,
  generalInternal: 5_000_000,
  /** Apple documents InvalidRefundPreferenceError and the percentage rules without a code the library knows. */
  invalidRequest: 4_000_000,
};

export interface ConsumptionDeskOptions {
  isAuthorized(authorization: string | undefined): Promise<boolean>;
  /** The type of a transaction the sandbox made ('Auto-Renewable Subscription' …), if it made it. */
  transactionType(transactionId: string): string | undefined;
}

function sendError(
  response: ServerResponse,
  status: number,
  errorCode: number,
  errorMessage: string,
): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ errorCode, errorMessage }));
}

/** What Apple would refuse in the body, or undefined when it takes it. */
function refusalOf(body: unknown, type: string): { code: number; message: string } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { code: ERRORS.invalidRequest, message: 'The request body is not a JSON object.' };
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((name) => !FIELDS.has(name));
  if (unknown) return { code: ERRORS.invalidRequest, message: `Unknown field ${unknown}.` };
  if (fields.customerConsented !== true)
    return { code: ERRORS.invalidCustomerConsented, message: 'Invalid customer consented.' };
  if (typeof fields.deliveryStatus !== 'string' || !DELIVERY_STATUSES.has(fields.deliveryStatus))
    return { code: ERRORS.invalidDeliveryStatus, message: 'Invalid delivery status.' };
  if (typeof fields.sampleContentProvided !== 'boolean')
    return {
      code: ERRORS.invalidSampleContentProvided,
      message: 'Invalid sample content provided.',
    };
  const preference = fields.refundPreference;
  if (
    preference !== undefined &&
    (typeof preference !== 'string' || !REFUND_PREFERENCES.has(preference))
  )
    return { code: ERRORS.invalidRequest, message: 'Invalid refund preference.' };
  const percentage = fields.consumptionPercentage;
  if (
    percentage !== undefined &&
    (!Number.isInteger(percentage) ||
      (percentage as number) < 0 ||
      (percentage as number) > 100_000)
  )
    return { code: ERRORS.invalidRequest, message: 'Invalid consumption percentage.' };
  const autoRenewable = type === 'Auto-Renewable Subscription';
  if (autoRenewable && percentage !== undefined)
    return {
      code: ERRORS.invalidRequest,
      message: 'consumptionPercentage is not taken for an auto-renewable subscription.',
    };
  if (!autoRenewable && preference === 'GRANT_PRORATED' && !((percentage as number) > 0))
    return {
      code: ERRORS.invalidRequest,
      message: 'GRANT_PRORATED needs a consumptionPercentage above 0.',
    };
  return undefined;
}

/** The Send Consumption Information endpoint, what it received, and its failures on demand. */
export function createConsumptionDesk(options: ConsumptionDeskOptions) {
  const reports: ConsumptionReport[] = [];
  let failuresToCome = 0;

  async function answer(
    request: IncomingMessage,
    response: ServerResponse,
    transactionId: string,
  ): Promise<void> {
    if (request.method !== 'PUT') return sendText(response, 405, 'Method Not Allowed');
    if (!(await options.isAuthorized(request.headers.authorization)))
      return sendText(response, 401, 'Unauthenticated');
    const text = await readBody(request);
    if (failuresToCome > 0) {
      failuresToCome -= 1;
      return sendError(response, 500, ERRORS.generalInternal, 'An unknown error occurred.');
    }
    if (!/^\d+$/.test(transactionId))
      return sendError(response, 400, ERRORS.invalidTransactionId, 'Invalid transaction id.');
    const type = options.transactionType(transactionId);
    if (!type)
      return sendError(response, 404, ERRORS.transactionIdNotFound, 'Transaction id not found.');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const refusal = refusalOf(body, type);
    if (refusal) return sendError(response, 400, refusal.code, refusal.message);
    reports.push({
      transactionId,
      body: body as ConsumptionReport['body'],
      receivedAt: Date.now(),
    });
    response.writeHead(202);
    response.end();
  }

  return {
    answer,
    /** Every call accepted, oldest first. */
    reports: (): ConsumptionReport[] => reports.map((report) => structuredClone(report)),
    /** The next `count` calls answer 500 (GeneralInternalError), whatever they carry. */
    failNext(count: number): void {
      failuresToCome = count;
    },
  };
}
