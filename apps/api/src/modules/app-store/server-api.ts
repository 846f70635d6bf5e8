// The server's client of the App Store Server API, Apple's own (`AppStoreServerAPIClient` of
// @apple/app-store-server-library), signing each call with the App Store Server API key
// (APPLE_ISSUER_ID, APPLE_KEY_ID, APPLE_PRIVATE_KEY_PATH). Every call Apple's API offers this
// product goes through here: Look Up Order ID, which finds the purchases of the order id in
// Apple's receipt email ("Order ID: MK5TTTVWJH"), Get Notification History, which the recovery
// of missed notifications reads (notification-recovery.ts), and Send Consumption Information,
// the answer to a consenting member's refund request (consumption-reports.ts).
//
// What Apple answers is signed like a notification and is verified the same way (the server's
// App Store verifier: the chain up to the configured roots, the bundle id, the environment
// rules) before anything of it is used.
import {
  APIError,
  APIException,
  AppStoreServerAPIClient,
  Environment,
  OrderLookupStatus,
} from '@apple/app-store-server-library';

import { AppError } from '../../errors';
import type {
  AppStoreOrderTransaction,
  AppStoreServerApi,
  AppStoreServerApiSettings,
  NotificationHistorySource,
} from '../../plugins/app-store';
import { AppStorePayloadRefused } from '../../security/app-store-verifier';

export const appStoreServerApiMessages = {
  unreachable: 'The App Store could not be reached; try again',
  keyRefused:
    "The App Store refused this server's API key (APPLE_ISSUER_ID, APPLE_KEY_ID, APPLE_PRIVATE_KEY_PATH)",
  refused: 'The App Store refused the call',
  notVerified: "The App Store's answer could not be verified",
};

/** Apple's order ids are 10 to 12 upper-case letters and digits; anything else is no order. */
const ORDER_ID = /^[A-Z0-9]{10,12}$/;
/** Longer than Apple takes on a bad day, short enough for a support agent waiting at a screen. */
const CALL_TIMEOUT_MS = 15_000;

/** The library's client for one environment, calling `baseUrl` instead of Apple when given. */
function clientFor(
  settings: AppStoreServerApiSettings,
  environment: Environment.PRODUCTION | Environment.SANDBOX,
  baseUrl?: string,
): AppStoreServerAPIClient {
  const client = new AppStoreServerAPIClient(
    settings.privateKey,
    settings.keyId,
    settings.issuerId,
    settings.bundleId,
    environment,
  );
  if (baseUrl) {
    // The one place the library's host is replaced. It fixes `urlBase` per environment in its
    // constructor (Apple's two hosts) and offers no option for another; APPLE_API_BASE_URL and
    // the local App Store sandbox answer elsewhere, so the field is set after construction. Every
    // call of the library is `urlBase + path`, so this is all it takes.
    (client as unknown as { urlBase: string }).urlBase = baseUrl.replace(/\/+$/, '');
  }
  return client;
}

/**
 * Where each call goes, in order: the configured stand-in alone, or Apple's Production host and
 * then (an order Production does not know may be a TestFlight or App Review purchase) its
 * Sandbox host, unless Sandbox purchases are refused.
 */
function clientsOf(settings: AppStoreServerApiSettings): AppStoreServerAPIClient[] {
  if (settings.baseUrl) return [clientFor(settings, Environment.PRODUCTION, settings.baseUrl)];
  return [
    clientFor(settings, Environment.PRODUCTION),
    ...(settings.refuseSandbox ? [] : [clientFor(settings, Environment.SANDBOX)]),
  ];
}

/** How long Apple keeps each host's notification history (Get Notification History). */
const HISTORY_KEPT_DAYS = { production: 180, sandbox: 30 };

/**
 * The notification histories to read and the client of each: Apple keeps one per host; the
 * stand-in answers for every environment at one address, and is held to the shorter keeping.
 */
function historiesOf(
  settings: AppStoreServerApiSettings,
): Array<NotificationHistorySource & { client: AppStoreServerAPIClient }> {
  if (settings.baseUrl) {
    const client = clientFor(settings, Environment.PRODUCTION, settings.baseUrl);
    return [{ name: 'stand-in', keptDays: HISTORY_KEPT_DAYS.sandbox, client }];
  }
  return [
    {
      name: 'Production',
      keptDays: HISTORY_KEPT_DAYS.production,
      client: clientFor(settings, Environment.PRODUCTION),
    },
    ...(settings.refuseSandbox
      ? []
      : [
          {
            name: 'Sandbox',
            keptDays: HISTORY_KEPT_DAYS.sandbox,
            client: clientFor(settings, Environment.SANDBOX),
          },
        ]),
  ];
}

/**
 * Apple no longer takes the pagination token (it expired, or the window it was made for is not
 * the one sent): the walk through the pages starts again from the first page.
 */
export class NotificationHistoryTokenRefused extends AppError {
  constructor(cause: unknown) {
    super(502, 'The App Store no longer takes this notification history page token');
    this.cause = cause;
  }
}

/** A call to Apple, its failures told as the AppError a caller can act on. */
async function call<T>(work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error('the App Store did not answer in time')),
      CALL_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([work(), timedOut]);
  } catch (error) {
    throw appStoreFailure(error);
  } finally {
    clearTimeout(timer);
  }
}

function appStoreFailure(error: unknown): AppError {
  let message = appStoreServerApiMessages.unreachable;
  if (error instanceof APIException && error.httpStatusCode < 500) {
    // 429 is Apple's rate limit: worth another try, like an outage.
    if (error.httpStatusCode === 401 || error.httpStatusCode === 403)
      message = appStoreServerApiMessages.keyRefused;
    else if (error.httpStatusCode !== 429)
      message = `${appStoreServerApiMessages.refused} (HTTP ${error.httpStatusCode}${error.apiError ? `, error ${error.apiError}` : ''})`;
  }
  // Kept for the log: what Apple or the network said.
  return Object.assign(new AppError(502, message), { cause: error });
}

export function createAppStoreServerApi(settings: AppStoreServerApiSettings): AppStoreServerApi {
  const clients = clientsOf(settings);

  async function verifiedTransactions(signed: string[]): Promise<AppStoreOrderTransaction[]> {
    const transactions: AppStoreOrderTransaction[] = [];
    for (const jws of signed) {
      try {
        const { transaction, environment } = await settings.verifier.verifyTransaction(jws);
        transactions.push({
          originalTransactionId: transaction.originalTransactionId ?? '',
          transactionId: transaction.transactionId ?? '',
          productId: transaction.productId ?? '',
          environment,
          payload: transaction,
        });
      } catch (error) {
        if (!(error instanceof AppStorePayloadRefused)) throw error;
        throw Object.assign(
          new AppError(502, `${appStoreServerApiMessages.notVerified}: ${error.message}`),
          { cause: error },
        );
      }
    }
    return transactions;
  }

  const histories = historiesOf(settings);

  return {
    notificationHistories: histories.map(({ name, keptDays }) => ({ name, keptDays })),
    async getNotificationHistory({ history, startDate, endDate, paginationToken }) {
      const source = histories.find((each) => each.name === history);
      if (!source) throw new Error(`no App Store notification history named ${history}`);
      try {
        const page = await call(() =>
          source.client.getNotificationHistory(paginationToken ?? null, { startDate, endDate }),
        );
        return {
          signedPayloads: (page.notificationHistory ?? []).flatMap((item) =>
            item.signedPayload ? [item.signedPayload] : [],
          ),
          hasMore: page.hasMore === true,
          paginationToken: page.paginationToken,
        };
      } catch (error) {
        const apiError = error instanceof AppError ? error.cause : undefined;
        if (
          paginationToken &&
          apiError instanceof APIException &&
          (apiError.apiError === APIError.PAGINATION_TOKEN_EXPIRED ||
            apiError.apiError === APIError.INVALID_PAGINATION_TOKEN)
        )
          throw new NotificationHistoryTokenRefused(apiError);
        throw error;
      }
    },
    async lookUpOrder(orderId) {
      if (!ORDER_ID.test(orderId)) return [];
      for (const client of clients) {
        const answer = await call(() => client.lookUpOrderId(orderId));
        if (answer.status === OrderLookupStatus.VALID)
          return verifiedTransactions(answer.signedTransactions ?? []);
      }
      return [];
    },

    async sendConsumptionInformation(environment, transactionId, request) {
      // A transaction is answered where it was made: the stand-in alone, else Apple's host of
      // that environment (the request names a transaction only that host knows).
      const client =
        settings.baseUrl && clients[0]
          ? clients[0]
          : clientFor(
              settings,
              environment === 'Sandbox' ? Environment.SANDBOX : Environment.PRODUCTION,
            );
      await call(() => client.sendConsumptionInformation(transactionId, request));
    },
  };
}
