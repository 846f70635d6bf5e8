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
import type * as AppStoreLibrary from '@apple/app-store-server-library';
import type { AppStoreServerAPIClient, Environment } from '@apple/app-store-server-library';

import { AppError } from '../../errors';
import type {
  AppStoreOrderTransaction,
  AppStoreServerApi,
  AppStoreServerApiSettings,
  NotificationHistorySource,
} from '../../plugins/app-store';
import { loadAppStoreLibrary } from '../../security/app-store-library';
import { AppStorePayloadRefused } from '../../security/app-store-verifier';

type AppStoreLibrary = typeof AppStoreLibrary;

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
  { AppStoreServerAPIClient }: AppStoreLibrary,
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
function clientsOf(
  library: AppStoreLibrary,
  settings: AppStoreServerApiSettings,
): AppStoreServerAPIClient[] {
  const { Environment } = library;
  if (settings.baseUrl) {
    return [clientFor(library, settings, Environment.PRODUCTION, settings.baseUrl)];
  }
  return [
    clientFor(library, settings, Environment.PRODUCTION),
    ...(settings.refuseSandbox ? [] : [clientFor(library, settings, Environment.SANDBOX)]),
  ];
}

/** How long Apple keeps each host's notification history (Get Notification History). */
const HISTORY_KEPT_DAYS = { production: 180, sandbox: 30 };

/**
 * The notification histories to read: Apple keeps one per host; the stand-in answers for every
 * environment at one address, and is held to the shorter keeping.
 */
function historiesOf(
  settings: AppStoreServerApiSettings,
): Array<NotificationHistorySource & { environment: 'Production' | 'Sandbox' }> {
  if (settings.baseUrl) {
    return [{ name: 'stand-in', keptDays: HISTORY_KEPT_DAYS.sandbox, environment: 'Production' }];
  }
  return [
    { name: 'Production', keptDays: HISTORY_KEPT_DAYS.production, environment: 'Production' },
    ...(settings.refuseSandbox
      ? []
      : [
          { name: 'Sandbox', keptDays: HISTORY_KEPT_DAYS.sandbox, environment: 'Sandbox' as const },
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
async function call<T>(library: AppStoreLibrary, work: () => Promise<T>): Promise<T> {
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
    throw appStoreFailure(library, error);
  } finally {
    clearTimeout(timer);
  }
}

function appStoreFailure({ APIException }: AppStoreLibrary, error: unknown): AppError {
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

/**
 * The client made at start; Apple's library and its API clients are loaded and made with the
 * first call (security/app-store-library.ts), and kept.
 */
export function createAppStoreServerApi(settings: AppStoreServerApiSettings): AppStoreServerApi {
  const histories = historiesOf(settings);
  let made:
    | Promise<{
        library: AppStoreLibrary;
        clients: AppStoreServerAPIClient[];
        /** The client of each history, by its name. */
        historyClients: Map<string, AppStoreServerAPIClient>;
      }>
    | undefined;
  const clientsMade = () =>
    (made ??= loadAppStoreLibrary().then((library) => ({
      library,
      clients: clientsOf(library, settings),
      historyClients: new Map(
        histories.map(({ name, environment }) => [
          name,
          clientFor(
            library,
            settings,
            environment === 'Sandbox'
              ? library.Environment.SANDBOX
              : library.Environment.PRODUCTION,
            settings.baseUrl,
          ),
        ]),
      ),
    })));

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

  return {
    notificationHistories: histories.map(({ name, keptDays }) => ({ name, keptDays })),
    async getNotificationHistory({ history, startDate, endDate, paginationToken }) {
      const source = histories.find((each) => each.name === history);
      if (!source) throw new Error(`no App Store notification history named ${history}`);
      const { library, historyClients } = await clientsMade();
      const client = historyClients.get(source.name);
      if (!client) throw new Error(`no App Store client for the history ${history}`);
      const { APIError, APIException } = library;
      try {
        const page = await call(library, () =>
          client.getNotificationHistory(paginationToken ?? null, { startDate, endDate }),
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
      const { library, clients } = await clientsMade();
      for (const client of clients) {
        const answer = await call(library, () => client.lookUpOrderId(orderId));
        if (answer.status === library.OrderLookupStatus.VALID)
          return verifiedTransactions(answer.signedTransactions ?? []);
      }
      return [];
    },

    async sendConsumptionInformation(environment, transactionId, request) {
      // A transaction is answered where it was made: the stand-in alone, else Apple's host of
      // that environment (the request names a transaction only that host knows).
      const { library, clients } = await clientsMade();
      const client =
        settings.baseUrl && clients[0]
          ? clients[0]
          : clientFor(
              library,
              settings,
              environment === 'Sandbox'
                ? library.Environment.SANDBOX
                : library.Environment.PRODUCTION,
            );
      await call(library, () => client.sendConsumptionInformation(transactionId, request));
    },
  };
}
