// A local stand-in for the App Store's side of in-app subscriptions, so the API can be developed
// and tested offline against Apple's own verifier (`SignedDataVerifier` of
// @apple/app-store-server-library), unchanged:
//
// - StoreKit 2 signed transactions and renewal infos, and App Store Server Notifications V2
//   (`{"signedPayload":"…"}`), each a JWS signed ES256 with an `x5c` chain of three certificates
//   made at start: a root (what the API is told to trust, as it is told of Apple's roots), an
//   intermediate carrying Apple's WWDR marker extension and a leaf carrying Apple's App Store
//   receipt-signing marker extension, as the verifier requires of Apple's own chain;
// - a second chain under another root, the same names but other keys, so tests can show that a
//   look-alike chain is refused;
// - subscriptions as the App Store runs them: a purchase (SUBSCRIBED / INITIAL_BUY), renewals,
//   auto-renew turned off and on, failed renewals with or without a grace period, expiry,
//   refunds and their reversal, and Family Sharing revocation, each delivering the notification
//   Apple would, retried with backoff when not answered 200 (Apple retries for days; here the
//   delays are scaled down);
// - a development page (`/dev`) where a member subscribes and each of those events is a button;
// - the App Store Server API's Look Up Order ID (`GET /inApps/v1/lookup/{orderId}`): every
//   purchase and renewal is an order with an Apple-style order id, the one Apple's receipt email
//   shows, and the call is authenticated with an API key made at start (app-store-server-api.ts).
//   One address answers for orders of both environments, where Apple has a host for each.
//
// The App Store can't be made to wait a month here: an action that Apple takes at the end of a
// period (a failed renewal, an expiry) ends the current period at the moment of the action, so
// the transaction's expiresDate is never after the notification saying it ended.
//
// Every page and form is a row of the route table at the top of startAppStoreSandbox. State lives
// in memory: it is a development tool, refused in production by the API's config.
import { createPrivateKey, type KeyObject, randomInt, randomUUID, sign } from 'node:crypto';
import { createServer } from 'node:http';

import type * as X509 from '@peculiar/x509';
// The Reflect metadata API that @peculiar/x509 (through tsyringe) needs when it loads.
import 'reflect-metadata';

import {
  type ConsumptionReport,
  type ConsumptionRequestReason,
  createConsumptionDesk,
} from './app-store-consumption';
import {
  isValidBearerToken,
  makeServerApiKey,
  newOrderId,
  type ServerApiCredentials,
} from './app-store-server-api';
import { attemptResultOf, createNotificationHistory } from './app-store-notification-history';
import {
  escapeHtml,
  listenOnLoopback,
  page as framePage,
  postButton,
  postOnce,
  readBody,
  sendHtml,
} from './loopback-http';
import {
  anyMethod,
  type Exchange,
  get,
  type PageHandler,
  post,
  type Route,
  routeTable,
  sendText,
  serveRoutes,
} from './route-table';
import { passTheClock } from './app-store-clock';

export type AppStoreEnvironment = 'Sandbox' | 'Production';

export interface AppStoreProduct {
  productId: string;
  name: string;
  days: number;
  /** In milliunits of USD, as Apple's `price` (9990 is $9.99). */
  priceMilliunits: number;
}

export interface AppStoreSandboxOptions {
  /** Where notifications go (the API's POST /api/payments/apple/notifications), read at each delivery. */
  notificationUrl: string | (() => string);
  bundleId: string;
  /** Apple's numeric app id, put in notifications' data.appAppleId (Apple sends it in Production). */
  appAppleId?: number;
  products: AppStoreProduct[];
  /** The member picker on the dev page: an email to the account id the app would set as appAccountToken. */
  findAccountId?: (email: string) => Promise<string | undefined>;
  port?: number;
  /** First retry after this long, doubling, 5 attempts (Apple retries at 1, 12, 24, 48, 72 hours; scaled down here). */
  retryBaseMs?: number;
}

export interface SignOptions {
  untrusted?: boolean;
}

export interface ActionOptions {
  /** false: only sign and hand back the notification (a test delivers it itself). */
  deliver?: boolean;
  /** Signs with the look-alike chain the API must refuse. */
  untrusted?: boolean;
}

/**
 * Each action resolves with the notification's `signedPayload` once its first delivery is
 * answered (retries go on in the background), so a test can check the API's state right after.
 */
export interface AppStoreSandbox {
  /** http://localhost:PORT */
  baseUrl: string;
  /** The development page: subscribe a member, and each App Store event as a button. */
  devUrl: string;
  /** The root to trust (DER) — what APPLE_ROOT_CERTIFICATES would name. */
  rootCertificate: Buffer;
  /**
   * The App Store Server API key this sandbox takes (made at start): what APPLE_ISSUER_ID,
   * APPLE_KEY_ID and the .p8 of APPLE_PRIVATE_KEY_PATH would hold.
   */
  serverApiCredentials: ServerApiCredentials;
  /** Signs any JSON payload as the App Store does (x5c chain). */
  sign(payload: object, options?: SignOptions): string;
  /**
   * Subscribes: a new original transaction. Returns the signedTransaction the iOS app would post
   * and the order id of the purchase (as Apple's receipt email shows it), and delivers SUBSCRIBED
   * (subtype INITIAL_BUY).
   */
  subscribe(input: {
    productId: string;
    appAccountToken?: string;
    environment?: AppStoreEnvironment;
    deliver?: boolean;
  }): Promise<{ originalTransactionId: string; signedTransaction: string; orderId: string }>;
  /** The order ids of a subscription's purchase and each renewal, oldest first. */
  orderIdsOf(originalTransactionId: string): string[];
  /** DID_RENEW: a new transaction for the next period (BILLING_RECOVERY after a failed renewal). */
  renew(originalTransactionId: string, options?: ActionOptions): Promise<string>;
  /** DID_CHANGE_RENEWAL_STATUS, AUTO_RENEW_ENABLED or AUTO_RENEW_DISABLED. */
  setAutoRenew(
    originalTransactionId: string,
    on: boolean,
    options?: ActionOptions,
  ): Promise<string>;
  /** DID_FAIL_TO_RENEW: into the grace period (subtype GRACE_PERIOD) or straight into billing retry. */
  failToRenew(
    originalTransactionId: string,
    withGracePeriod: boolean,
    options?: ActionOptions,
  ): Promise<string>;
  /** GRACE_PERIOD_EXPIRED: still in billing retry, no longer entitled. */
  expireGracePeriod(originalTransactionId: string, options?: ActionOptions): Promise<string>;
  /** EXPIRED: VOLUNTARY when auto-renew was off, BILLING_RETRY otherwise. */
  expire(originalTransactionId: string, options?: ActionOptions): Promise<string>;
  /** REFUND: the latest transaction gets a revocationDate (revocationReason 0). */
  refund(originalTransactionId: string, options?: ActionOptions): Promise<string>;
  /** REFUND_REVERSED: the refunded transaction is restored. */
  reverseRefund(originalTransactionId: string, options?: ActionOptions): Promise<string>;
  /** REVOKE: Family Sharing no longer grants it (inAppOwnershipType FAMILY_SHARED, revocationDate). */
  revoke(originalTransactionId: string, options?: ActionOptions): Promise<string>;
  /** Renewals and expiries the clock passed (app-store-clock.ts); their notifications, in order. */
  clockMoved(): Promise<string[]>;
  /** TEST: a notification without a transaction, as App Store Connect's "Request a Test Notification". */
  test(options?: { environment?: AppStoreEnvironment; deliver?: boolean }): Promise<string>;
  /** CONSUMPTION_REQUEST: the customer asked Apple to refund the latest transaction (app-store-consumption.ts). */
  requestConsumption(
    originalTransactionId: string,
    options?: ActionOptions & { reason?: ConsumptionRequestReason },
  ): Promise<string>;
  /** The Send Consumption Information calls the sandbox accepted, oldest first. */
  consumptionReports(): ConsumptionReport[];
  /** The next `count` Send Consumption Information calls answer 500. */
  failNextConsumptionCalls(count: number): void;
  /** `count` Get Notification History calls answer 500, after `after` (app-store-notification-history.ts). */
  failNotificationHistoryRequests(count: number, options?: { after?: number }): void;
  close(): Promise<void>;
}

/** Every action and its result is the `signedPayload` string: also what was (or would be) POSTed. */
type SignedPayload = string;

const SUBSCRIPTION_GROUP = 'kegel-premium';
const DAY_MS = 24 * 60 * 60 * 1000;
/** Apple's grace period is 3, 16 or 28 days as the developer chooses; 6 here. */
const GRACE_PERIOD_MS = 6 * DAY_MS;
/** Apple's extensions that mark its WWDR intermediate and its App Store signing leaf. */
const APPLE_WWDR_INTERMEDIATE_OID = '1.2.840.113635.100.6.2.1';
const APPLE_RECEIPT_SIGNING_OID = '1.2.840.113635.100.6.11.1';
/** An ASN.1 NULL: the verifier asks only that the extensions be there. */
const ASN1_NULL = new Uint8Array([0x05, 0x00]);

/** Apple's Status (data.status of a notification). */
const STATUS = { active: 1, expired: 2, billingRetry: 3, gracePeriod: 4, revoked: 5 } as const;

/**
 * Where a subscription is. `refunded` and `revoked` both answer status 5 (revoked), but only a
 * refund can be reversed.
 */
type SubscriptionState =
  'active' | 'gracePeriod' | 'billingRetry' | 'expired' | 'refunded' | 'revoked';

interface Transaction {
  transactionId: string;
  /** The order the App Store billed this period in: what Look Up Order ID takes. */
  orderId: string;
  webOrderLineItemId: string;
  purchaseDate: number;
  expiresDate: number;
  transactionReason: 'PURCHASE' | 'RENEWAL';
  inAppOwnershipType: 'PURCHASED' | 'FAMILY_SHARED';
  revocationDate?: number;
  revocationReason?: 0 | 1;
}

interface Subscription {
  originalTransactionId: string;
  product: AppStoreProduct;
  environment: AppStoreEnvironment;
  appAccountToken?: string;
  /** Who subscribed on the development page (a label only). */
  email?: string;
  originalPurchaseDate: number;
  /** Oldest first: the last is the current period's. */
  transactions: Transaction[];
  autoRenew: boolean;
  state: SubscriptionState;
  /** What a refund interrupted, for its reversal. */
  stateBeforeRefund?: SubscriptionState;
  gracePeriodExpiresDate?: number;
  expirationIntent?: 1 | 2;
}

/** A signing chain: the leaf's key signs, the three certificates go in `x5c`. */
interface Chain {
  signingKey: KeyObject;
  x5c: [string, string, string];
  rootDer: Buffer;
}

/** An action the subscription's state forbids, or an unknown one: a 409 or 404 on the page. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const EC_KEY = { name: 'ECDSA', namedCurve: 'P-256' };
const EC_SIGNING = { name: 'ECDSA', hash: 'SHA-256' };

/** Names that read like Apple's, marked as the sandbox's own. */
const NAMES = {
  root: 'CN=Kegel Sandbox Root CA - G3, OU=Kegel Sandbox Certification Authority, O=Kegel Coach (test), C=US',
  intermediate:
    'CN=Kegel Sandbox Worldwide Developer Relations CA - G6, OU=Kegel Sandbox Certification Authority, O=Kegel Coach (test), C=US',
  leaf: 'CN=Kegel Sandbox App Store Server Notifications Signing, OU=Kegel Sandbox App Store, O=Kegel Coach (test), C=US',
};

let x509Loaded: Promise<typeof X509> | undefined;

/** @peculiar/x509, loaded once, when the first chain is made. */
function loadX509(): Promise<typeof X509> {
  x509Loaded ??= import('@peculiar/x509').then((x509) => {
    // Node's WebCrypto makes the keys and signs the certificates.
    x509.cryptoProvider.set(crypto);
    return x509;
  });
  return x509Loaded;
}

function ecKeys() {
  return crypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify']);
}

/**
 * Root, intermediate and leaf as Apple's chain has them. The verifier compares the issuer and
 * subject strings and checks each signature, the intermediate's CA flag, the two marker
 * extensions and each certificate's dates against the payload's signedDate.
 */
async function makeChain(x509: typeof X509, start: number): Promise<Chain> {
  const notBefore = new Date(start - DAY_MS);
  const notAfter = new Date(start + 10 * 365 * DAY_MS);
  const [rootKeys, intermediateKeys, leafKeys] = await Promise.all([ecKeys(), ecKeys(), ecKeys()]);
  const caUsage = new x509.KeyUsagesExtension(
    x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
    true,
  );
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    name: NAMES.root,
    keys: rootKeys,
    notBefore,
    notAfter,
    signingAlgorithm: EC_SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      caUsage,
      await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
    ],
  });
  const intermediate = await x509.X509CertificateGenerator.create({
    subject: NAMES.intermediate,
    issuer: root.subject,
    publicKey: intermediateKeys.publicKey,
    signingKey: rootKeys.privateKey,
    notBefore,
    notAfter,
    signingAlgorithm: EC_SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      caUsage,
      await x509.SubjectKeyIdentifierExtension.create(intermediateKeys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(rootKeys.publicKey),
      new x509.Extension(APPLE_WWDR_INTERMEDIATE_OID, false, ASN1_NULL),
    ],
  });
  const leaf = await x509.X509CertificateGenerator.create({
    subject: NAMES.leaf,
    issuer: intermediate.subject,
    publicKey: leafKeys.publicKey,
    signingKey: intermediateKeys.privateKey,
    notBefore,
    notAfter,
    signingAlgorithm: EC_SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      await x509.AuthorityKeyIdentifierExtension.create(intermediateKeys.publicKey),
      new x509.Extension(APPLE_RECEIPT_SIGNING_OID, false, ASN1_NULL),
    ],
  });
  // Node's own key for the leaf, so that signing is synchronous (WebCrypto's is not).
  const pkcs8 = Buffer.from(await crypto.subtle.exportKey('pkcs8', leafKeys.privateKey));
  const der = (certificate: X509.X509Certificate): Buffer => Buffer.from(certificate.rawData);
  return {
    signingKey: createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }),
    x5c: [
      der(leaf).toString('base64'),
      der(intermediate).toString('base64'),
      der(root).toString('base64'),
    ],
    rootDer: der(root),
  };
}

/** A JWS in compact form, ES256 with the signature as JOSE wants it (r‖s, not DER). */
function signJws(chain: Chain, payload: object): string {
  const encode = (value: object): string =>
    Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
  const signingInput = `${encode({ alg: 'ES256', x5c: chain.x5c })}.${encode(payload)}`;
  const signature = sign('sha256', Buffer.from(signingInput), {
    key: chain.signingKey,
    dsaEncoding: 'ieee-p1363',
  });
  return `${signingInput}.${signature.toString('base64url')}`;
}

function formatPrice(milliunits: number): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(
    milliunits / 1000,
  );
}

function formatDate(ms: number): string {
  return new Date(ms).toLocaleString('en-US', { timeZone: 'UTC', timeZoneName: 'short' });
}

const PAGE_STYLE = `body{margin:0;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;background:#f6f9fc;color:#1a1f36}
main{max-width:440px;margin:40px auto;padding:0 16px}main.wide{max-width:1180px}.card{background:#fff;border-radius:12px;box-shadow:0 2px 12px rgb(0 0 0/8%);padding:28px}
.badge{display:inline-block;background:#ffe8a3;color:#6b4e00;font-size:12px;font-weight:700;padding:4px 8px;border-radius:6px}
h1{font-size:20px;margin:16px 0 4px}h2{font-size:16px;margin:24px 0 4px}label{display:block;font-size:14px;font-weight:600;margin:14px 0 6px}
input,select{width:100%;box-sizing:border-box;height:44px;border:1px solid #cfd7df;border-radius:8px;padding:0 12px;font:inherit;background:#fff}.row{display:flex;gap:12px}.row>div{flex:1}
button{width:100%;height:48px;margin-top:22px;border:0;border-radius:8px;background:#0071e3;color:#fff;font:inherit;font-weight:700;cursor:pointer}
.subscribe{max-width:720px}.subscribe button{width:auto;padding:0 24px}
.error{background:#fde8e8;color:#9b1c1c;padding:10px 12px;border-radius:8px;margin-top:16px}.hint,.back{font-size:13px;color:#5a6478;margin-top:16px}a{color:#0071e3}
table{width:100%;border-collapse:collapse;margin-top:12px}td,th{text-align:left;padding:8px 4px;border-bottom:1px solid #e3e8ee;font-size:14px;vertical-align:top}
.actions form{display:inline-block;margin:0 6px 6px 0}.actions button{width:auto;height:32px;margin:0 4px 0 0;padding:0 12px;font-size:13px}
.scroll{overflow-x:auto}.actions button{height:auto;min-height:32px;padding:6px 12px;white-space:nowrap}
@media (max-width:600px){.row{flex-direction:column;gap:0}}`;

function page(title: string, body: string, layout: 'narrow' | 'wide' = 'narrow'): string {
  return framePage(PAGE_STYLE, title, body, layout);
}

const BADGE = '<span class="badge">TEST MODE · local App Store sandbox</span>';

function refusalPage(refusal: Refusal): string {
  return page(
    refusal.status === 404 ? 'Not found' : 'Not done',
    `<div class="card">${BADGE}<p class="error" role="alert">${escapeHtml(refusal.message)}</p>
<p class="back"><a href="/dev">← Subscriptions</a></p></div>`,
  );
}

const STATE_LABELS: Record<SubscriptionState, string> = {
  active: 'Active',
  gracePeriod: 'Billing grace period',
  billingRetry: 'Billing retry',
  expired: 'Expired',
  refunded: 'Refunded',
  revoked: 'Revoked (Family Sharing)',
};

/** The development page's buttons: the path segment, the text, and whether the state allows it. */
const DEV_ACTIONS: {
  path: string;
  text: string;
  shown: (subscription: Subscription) => boolean;
}[] = [
  { path: 'renew', text: 'Renew', shown: (s) => canRenew(s) },
  {
    path: 'auto-renew-off',
    text: 'Turn auto-renew off',
    shown: (s) => isLive(s) && s.autoRenew,
  },
  {
    path: 'auto-renew-on',
    text: 'Turn auto-renew on',
    shown: (s) => isLive(s) && !s.autoRenew,
  },
  {
    path: 'fail-grace',
    text: 'Fail to renew (grace)',
    shown: (s) => s.state === 'active' && s.autoRenew,
  },
  {
    path: 'fail-no-grace',
    text: 'Fail to renew (no grace)',
    shown: (s) => s.state === 'active' && s.autoRenew,
  },
  { path: 'end-grace', text: 'End grace period', shown: (s) => s.state === 'gracePeriod' },
  {
    path: 'expire',
    text: 'Expire',
    // With auto-renew on, an active subscription renews: it ends only once its renewal failed.
    shown: (s) => (s.state === 'active' && !s.autoRenew) || isFailing(s),
  },
  { path: 'refund', text: 'Refund', shown: (s) => canRefund(s) },
  { path: 'reverse-refund', text: 'Reverse refund', shown: (s) => s.state === 'refunded' },
  { path: 'revoke', text: 'Revoke', shown: (s) => canRevoke(s) },
  // The customer asks Apple for a refund: CONSUMPTION_REQUEST, which the server may answer.
  { path: 'consumption-request', text: 'Ask Apple for a refund', shown: (s) => canRefund(s) },
];

/** Still running: active, or its renewal failing (billing is retried). */
function isLive(subscription: Subscription): boolean {
  return subscription.state === 'active' || isFailing(subscription);
}

function isFailing(subscription: Subscription): boolean {
  return subscription.state === 'gracePeriod' || subscription.state === 'billingRetry';
}

function canRenew(subscription: Subscription): boolean {
  return (subscription.state === 'active' && subscription.autoRenew) || isFailing(subscription);
}

function canRefund(subscription: Subscription): boolean {
  return isLive(subscription) || subscription.state === 'expired';
}

function canRevoke(subscription: Subscription): boolean {
  return subscription.state !== 'revoked' && subscription.state !== 'refunded';
}

export async function startAppStoreSandbox(
  options: AppStoreSandboxOptions,
): Promise<AppStoreSandbox> {
  const x509 = await loadX509();
  const startedAt = Date.now();
  const [trusted, untrusted] = await Promise.all([
    makeChain(x509, startedAt),
    makeChain(x509, startedAt),
  ]);
  const products = new Map(options.products.map((product) => [product.productId, product]));
  // A Map keeps insertion order, which is purchase order: reversed, it lists newest first.
  const subscriptions = new Map<string, Subscription>();
  const retryBaseMs = options.retryBaseMs ?? 1000;
  const pendingDeliveries = new Set<NodeJS.Timeout>();
  // Apple's ids are strings of digits; a random start keeps two sandboxes' ids apart.
  let nextTransactionId = 2_000_000_000_000_000 + randomInt(1_000_000_000) * 1000;
  let nextWebOrderLineItemId = 2_000_000_000_000_000 + randomInt(1_000_000_000) * 1000;
  let lastSignedDate = 0;
  const serverApiKey = makeServerApiKey();
  const orderIds = new Set<string>();
  const consumption = createConsumptionDesk({
    isAuthorized: (authorization) =>
      isValidBearerToken(authorization, serverApiKey, options.bundleId),
    // Every product of this sandbox is an auto-renewable subscription.
    transactionType: (transactionId) =>
      [...subscriptions.values()].some((each) =>
        each.transactions.some((transaction) => transaction.transactionId === transactionId),
      )
        ? 'Auto-Renewable Subscription'
        : undefined,
  });
  // Every notification signed here, delivered or not, for Get Notification History.
  const history = createNotificationHistory({ serverApiKey, bundleId: options.bundleId });

  // ---- Every endpoint of the sandbox, in one place: the development page and its forms ----
  /** A subscription's button: its path ends in `action`, and it takes that action on it. */
  const subscriptionButton = (
    action: string,
    takeAction: (originalTransactionId: string) => Promise<unknown>,
  ): Route<PageHandler> =>
    post(`/dev/subscriptions/:originalTransactionId(\\d+)/${action}`, onSubscription(takeAction));
  const findRoute = routeTable<PageHandler>([
    get('/dev', showDevPage),
    post('/dev/subscribe', subscribeFromDevPage),
    post('/dev/test', testFromDevPage),
    // A subscription's buttons (DEV_ACTIONS says which the page shows), each an App Store event.
    subscriptionButton('renew', (id) => renew(id)),
    subscriptionButton('auto-renew-off', (id) => setAutoRenew(id, false)),
    subscriptionButton('auto-renew-on', (id) => setAutoRenew(id, true)),
    subscriptionButton('fail-grace', (id) => failToRenew(id, true)),
    subscriptionButton('fail-no-grace', (id) => failToRenew(id, false)),
    subscriptionButton('end-grace', (id) => expireGracePeriod(id)),
    subscriptionButton('expire', (id) => expire(id)),
    subscriptionButton('refund', (id) => refund(id)),
    subscriptionButton('reverse-refund', (id) => reverseRefund(id)),
    subscriptionButton('revoke', (id) => revoke(id)),
    subscriptionButton('consumption-request', (id) => requestConsumption(id)),
    // The App Store Server API.
    get('/inApps/v1/lookup/:orderId(.+)', lookUpOrder),
    anyMethod('/inApps/v2/transactions/consumption/:transactionId(.+)', (exchange) =>
      consumption.answer(exchange.request, exchange.response, exchange.param('transactionId')),
    ),
    post('/inApps/v1/notifications/history', history.answer),
    // Anything else under /dev is the development page's own 404.
    anyMethod('/dev', noSuchDevPage),
    anyMethod('/dev/*', noSuchDevPage),
  ]);

  /** Now, but always later than the last signature, so a later action has a later signedDate. */
  function signingTime(): number {
    lastSignedDate = Math.max(Date.now(), lastSignedDate + 1);
    return lastSignedDate;
  }

  function signPayload(payload: object, signOptions: SignOptions = {}): string {
    return signJws(signOptions.untrusted ? untrusted : trusted, payload);
  }

  /** Delivers until answered 200, 5 attempts; resolves once the first attempt is answered. */
  async function deliver(signedPayload: SignedPayload, attempt = 1): Promise<void> {
    try {
      const url =
        typeof options.notificationUrl === 'function'
          ? options.notificationUrl()
          : options.notificationUrl;
      // Undefined: the receiver never answered.
      const status = await postOnce(url, JSON.stringify({ signedPayload })).catch(() => undefined);
      history.recordAttempt(signedPayload, attemptResultOf(status));
      if (status === 200) return;
      throw new Error(`notification answered ${status ?? 'nothing'}`);
    } catch {
      if (attempt >= 5) return;
      // Apple resends the same signedPayload: the receiver must take a duplicate calmly.
      const timer = setTimeout(
        () => {
          pendingDeliveries.delete(timer);
          void deliver(signedPayload, attempt + 1);
        },
        retryBaseMs * 2 ** (attempt - 1),
      );
      pendingDeliveries.add(timer);
    }
  }

  function subscriptionOf(originalTransactionId: string): Subscription {
    const subscription = subscriptions.get(originalTransactionId);
    if (!subscription)
      throw new Refusal(
        404,
        `No subscription with originalTransactionId ${originalTransactionId}.`,
      );
    return subscription;
  }

  function latestTransaction(subscription: Subscription): Transaction {
    const transaction = subscription.transactions.at(-1);
    if (!transaction)
      throw new Error(`subscription ${subscription.originalTransactionId} has no transaction`);
    return transaction;
  }

  function newTransaction(
    subscription: Pick<Subscription, 'product'>,
    purchaseDate: number,
    transactionReason: Transaction['transactionReason'],
  ): Transaction {
    const transactionId = String(nextTransactionId++);
    const orderId = newOrderId((taken) => orderIds.has(taken));
    orderIds.add(orderId);
    return {
      transactionId,
      orderId,
      webOrderLineItemId: String(nextWebOrderLineItemId++),
      purchaseDate,
      expiresDate: purchaseDate + subscription.product.days * DAY_MS,
      transactionReason,
      inAppOwnershipType: 'PURCHASED',
    };
  }

  /** The ended period ends now if it had not yet (see the header). */
  function endPeriodNow(transaction: Transaction, now: number): void {
    transaction.expiresDate = Math.min(transaction.expiresDate, now);
  }

  /** JWSTransactionDecodedPayload, as signed now. */
  function transactionPayload(
    subscription: Subscription,
    transaction: Transaction,
    signedDate: number,
  ) {
    return {
      transactionId: transaction.transactionId,
      originalTransactionId: subscription.originalTransactionId,
      webOrderLineItemId: transaction.webOrderLineItemId,
      bundleId: options.bundleId,
      productId: subscription.product.productId,
      subscriptionGroupIdentifier: SUBSCRIPTION_GROUP,
      purchaseDate: transaction.purchaseDate,
      originalPurchaseDate: subscription.originalPurchaseDate,
      expiresDate: transaction.expiresDate,
      quantity: 1,
      type: 'Auto-Renewable Subscription',
      ...(subscription.appAccountToken ? { appAccountToken: subscription.appAccountToken } : {}),
      inAppOwnershipType: transaction.inAppOwnershipType,
      signedDate,
      ...(transaction.revocationDate !== undefined
        ? {
            revocationDate: transaction.revocationDate,
            revocationReason: transaction.revocationReason ?? 0,
          }
        : {}),
      environment: subscription.environment,
      transactionReason: transaction.transactionReason,
      storefront: 'USA',
      storefrontId: '143441',
      price: subscription.product.priceMilliunits,
      currency: 'USD',
    };
  }

  /** JWSRenewalInfoDecodedPayload, as signed now. */
  function renewalInfoPayload(subscription: Subscription, signedDate: number) {
    const transaction = latestTransaction(subscription);
    const failing = isFailing(subscription);
    return {
      originalTransactionId: subscription.originalTransactionId,
      autoRenewProductId: subscription.product.productId,
      productId: subscription.product.productId,
      autoRenewStatus: subscription.autoRenew ? 1 : 0,
      ...(subscription.appAccountToken ? { appAccountToken: subscription.appAccountToken } : {}),
      ...(failing ? { isInBillingRetryPeriod: true } : {}),
      ...(subscription.gracePeriodExpiresDate !== undefined
        ? { gracePeriodExpiresDate: subscription.gracePeriodExpiresDate }
        : {}),
      ...(subscription.expirationIntent !== undefined
        ? { expirationIntent: subscription.expirationIntent }
        : {}),
      signedDate,
      environment: subscription.environment,
      recentSubscriptionStartDate: subscription.originalPurchaseDate,
      renewalDate: transaction.expiresDate,
      renewalPrice: subscription.product.priceMilliunits,
      currency: 'USD',
    };
  }

  function status(subscription: Subscription): number {
    switch (subscription.state) {
      case 'active':
        return STATUS.active;
      case 'gracePeriod':
        return STATUS.gracePeriod;
      case 'billingRetry':
        return STATUS.billingRetry;
      case 'expired':
        return STATUS.expired;
      case 'refunded':
      case 'revoked':
        return STATUS.revoked;
    }
  }

  /** ResponseBodyV2DecodedPayload: the notification, its transaction and renewal info signed now. */
  function notification(
    notificationType: string,
    subtype: string | undefined,
    environment: AppStoreEnvironment,
    signOptions: SignOptions,
    subscription?: Subscription,
    extraData: object = {},
  ): SignedPayload {
    const signedDate = signingTime();
    const data = {
      ...extraData,
      // Apple puts the app's id in Production notifications only.
      ...(environment === 'Production' && options.appAppleId !== undefined
        ? { appAppleId: options.appAppleId }
        : {}),
      bundleId: options.bundleId,
      ...(subscription ? { bundleVersion: '1' } : {}),
      environment,
      ...(subscription
        ? {
            signedTransactionInfo: signPayload(
              transactionPayload(subscription, latestTransaction(subscription), signedDate),
              signOptions,
            ),
            signedRenewalInfo: signPayload(
              renewalInfoPayload(subscription, signedDate),
              signOptions,
            ),
            status: status(subscription),
          }
        : {}),
    };
    const signedPayload = signPayload(
      {
        notificationType,
        ...(subtype ? { subtype } : {}),
        notificationUUID: randomUUID(),
        data,
        version: '2.0',
        signedDate,
      },
      signOptions,
    );
    // What the look-alike chain signs is no notification of this App Store's.
    if (!signOptions.untrusted)
      history.keep(signedPayload, { signedDate, notificationType, subtype });
    return signedPayload;
  }

  async function send(signedPayload: SignedPayload, shouldDeliver = true): Promise<SignedPayload> {
    if (shouldDeliver) await deliver(signedPayload);
    // Not delivered: a send the network lost, as the history tells it.
    else history.recordAttempt(signedPayload, 'NO_RESPONSE');
    return signedPayload;
  }

  /**
   * An action on a subscription: `change` checks the state and changes it (throwing a Refusal
   * when the state forbids it) and names the notification Apple would send for it.
   */
  async function act(
    originalTransactionId: string,
    actionOptions: ActionOptions,
    change: (subscription: Subscription, now: number) => [type: string, subtype?: string],
  ): Promise<SignedPayload> {
    const subscription = subscriptionOf(originalTransactionId);
    const [type, subtype] = change(subscription, Date.now());
    const signedPayload = notification(
      type,
      subtype,
      subscription.environment,
      { untrusted: actionOptions.untrusted },
      subscription,
    );
    return send(signedPayload, actionOptions.deliver);
  }

  function refuseUnless(allowed: boolean, subscription: Subscription, what: string): void {
    if (!allowed) {
      throw new Refusal(
        409,
        `Cannot ${what}: the subscription ${subscription.originalTransactionId} is ${STATE_LABELS[subscription.state].toLowerCase()}${subscription.autoRenew ? '' : ' with auto-renew off'}.`,
      );
    }
  }

  async function subscribe(input: {
    productId: string;
    appAccountToken?: string;
    environment?: AppStoreEnvironment;
    deliver?: boolean;
    email?: string;
  }): Promise<{ originalTransactionId: string; signedTransaction: string; orderId: string }> {
    const product = products.get(input.productId);
    if (!product) throw new Refusal(400, `No product ${input.productId} in this sandbox.`);
    const now = Date.now();
    const first = newTransaction({ product }, now, 'PURCHASE');
    const subscription: Subscription = {
      originalTransactionId: first.transactionId,
      product,
      environment: input.environment ?? 'Sandbox',
      ...(input.appAccountToken ? { appAccountToken: input.appAccountToken } : {}),
      ...(input.email ? { email: input.email } : {}),
      originalPurchaseDate: now,
      transactions: [first],
      autoRenew: true,
      state: 'active',
    };
    subscriptions.set(subscription.originalTransactionId, subscription);
    // What StoreKit hands the app after the purchase, which the app posts to the API.
    const signedTransaction = signPayload(transactionPayload(subscription, first, signingTime()));
    await send(
      notification('SUBSCRIBED', 'INITIAL_BUY', subscription.environment, {}, subscription),
      input.deliver,
    );
    return {
      originalTransactionId: subscription.originalTransactionId,
      signedTransaction,
      orderId: first.orderId,
    };
  }

  /** The subscription and transaction an order billed, if this sandbox made that order. */
  function findOrder(
    orderId: string,
  ): { subscription: Subscription; transaction: Transaction } | undefined {
    for (const subscription of subscriptions.values()) {
      const transaction = subscription.transactions.find((each) => each.orderId === orderId);
      if (transaction) return { subscription, transaction };
    }
    return undefined;
  }

  /**
   * Look Up Order ID as Apple answers it: status 0 and the order's transactions signed now for an
   * order of this app, status 1 and none for any other id; 401 without a valid bearer token.
   */
  async function lookUpOrder({ request, response, param }: Exchange): Promise<void> {
    if (!(await isValidBearerToken(request.headers.authorization, serverApiKey, options.bundleId)))
      return sendText(response, 401, 'Unauthenticated');
    const order = findOrder(param('orderId'));
    const answer = order
      ? {
          status: 0,
          signedTransactions: [
            signPayload(transactionPayload(order.subscription, order.transaction, signingTime())),
          ],
        }
      : { status: 1, signedTransactions: [] };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(answer));
  }

  const renew = (originalTransactionId: string, actionOptions: ActionOptions = {}) =>
    act(originalTransactionId, actionOptions, (subscription, now) => {
      refuseUnless(canRenew(subscription), subscription, 'renew');
      const recovering = isFailing(subscription);
      const previous = latestTransaction(subscription);
      // A recovered renewal starts a period now; a renewal on time follows the previous period.
      subscription.transactions.push(
        newTransaction(subscription, recovering ? now : previous.expiresDate, 'RENEWAL'),
      );
      subscription.state = 'active';
      delete subscription.gracePeriodExpiresDate;
      delete subscription.expirationIntent;
      return recovering ? ['DID_RENEW', 'BILLING_RECOVERY'] : ['DID_RENEW'];
    });

  const setAutoRenew = (
    originalTransactionId: string,
    on: boolean,
    actionOptions: ActionOptions = {},
  ) =>
    act(originalTransactionId, actionOptions, (subscription) => {
      refuseUnless(
        isLive(subscription) && subscription.autoRenew !== on,
        subscription,
        `turn auto-renew ${on ? 'on' : 'off'}`,
      );
      subscription.autoRenew = on;
      return ['DID_CHANGE_RENEWAL_STATUS', on ? 'AUTO_RENEW_ENABLED' : 'AUTO_RENEW_DISABLED'];
    });

  const failToRenew = (
    originalTransactionId: string,
    withGracePeriod: boolean,
    actionOptions: ActionOptions = {},
  ) =>
    act(originalTransactionId, actionOptions, (subscription, now) => {
      refuseUnless(
        subscription.state === 'active' && subscription.autoRenew,
        subscription,
        'fail to renew',
      );
      const transaction = latestTransaction(subscription);
      endPeriodNow(transaction, now);
      subscription.state = withGracePeriod ? 'gracePeriod' : 'billingRetry';
      if (withGracePeriod)
        subscription.gracePeriodExpiresDate = transaction.expiresDate + GRACE_PERIOD_MS;
      return withGracePeriod ? ['DID_FAIL_TO_RENEW', 'GRACE_PERIOD'] : ['DID_FAIL_TO_RENEW'];
    });

  const expireGracePeriod = (originalTransactionId: string, actionOptions: ActionOptions = {}) =>
    act(originalTransactionId, actionOptions, (subscription, now) => {
      refuseUnless(subscription.state === 'gracePeriod', subscription, 'end the grace period');
      // Billing is still retried after the grace period; the entitlement ends now.
      subscription.state = 'billingRetry';
      subscription.gracePeriodExpiresDate = Math.min(
        subscription.gracePeriodExpiresDate ?? now,
        now,
      );
      return ['GRACE_PERIOD_EXPIRED'];
    });

  const expire = (originalTransactionId: string, actionOptions: ActionOptions = {}) =>
    act(originalTransactionId, actionOptions, (subscription, now) => {
      refuseUnless(isLive(subscription), subscription, 'expire');
      const voluntary = subscription.state === 'active' && !subscription.autoRenew;
      endPeriodNow(latestTransaction(subscription), now);
      subscription.state = 'expired';
      subscription.autoRenew = false;
      if (subscription.gracePeriodExpiresDate !== undefined)
        subscription.gracePeriodExpiresDate = Math.min(subscription.gracePeriodExpiresDate, now);
      subscription.expirationIntent = voluntary ? 1 : 2;
      return ['EXPIRED', voluntary ? 'VOLUNTARY' : 'BILLING_RETRY'];
    });

  const refund = (originalTransactionId: string, actionOptions: ActionOptions = {}) =>
    act(originalTransactionId, actionOptions, (subscription, now) => {
      refuseUnless(canRefund(subscription), subscription, 'refund');
      const transaction = latestTransaction(subscription);
      transaction.revocationDate = now;
      transaction.revocationReason = 0;
      subscription.stateBeforeRefund = subscription.state;
      subscription.state = 'refunded';
      return ['REFUND'];
    });

  const reverseRefund = (originalTransactionId: string, actionOptions: ActionOptions = {}) =>
    act(originalTransactionId, actionOptions, (subscription) => {
      refuseUnless(subscription.state === 'refunded', subscription, 'reverse a refund');
      const transaction = latestTransaction(subscription);
      delete transaction.revocationDate;
      delete transaction.revocationReason;
      subscription.state = subscription.stateBeforeRefund ?? 'active';
      delete subscription.stateBeforeRefund;
      return ['REFUND_REVERSED'];
    });

  /** CONSUMPTION_REQUEST about the latest transaction, with the customer's reason. */
  const requestConsumption: AppStoreSandbox['requestConsumption'] = (
    originalTransactionId,
    { reason, ...actionOptions } = {},
  ) => {
    const subscription = subscriptionOf(originalTransactionId);
    const signedPayload = notification(
      'CONSUMPTION_REQUEST',
      undefined,
      subscription.environment,
      { untrusted: actionOptions.untrusted },
      subscription,
      { consumptionRequestReason: reason ?? 'UNINTENDED_PURCHASE' },
    );
    return send(signedPayload, actionOptions.deliver);
  };

  const revoke = (originalTransactionId: string, actionOptions: ActionOptions = {}) =>
    act(originalTransactionId, actionOptions, (subscription, now) => {
      refuseUnless(canRevoke(subscription), subscription, 'revoke');
      // The purchaser left the family (or stopped sharing): the member's access ends now.
      const transaction = latestTransaction(subscription);
      transaction.inAppOwnershipType = 'FAMILY_SHARED';
      transaction.revocationDate = now;
      transaction.revocationReason = 0;
      subscription.state = 'revoked';
      return ['REVOKE'];
    });

  async function test(
    testOptions: { environment?: AppStoreEnvironment; deliver?: boolean } = {},
  ): Promise<SignedPayload> {
    return send(
      notification('TEST', undefined, testOptions.environment ?? 'Sandbox', {}),
      testOptions.deliver,
    );
  }

  function whoOf(subscription: Subscription): string {
    if (subscription.email) return subscription.email;
    if (subscription.appAccountToken) return `account ${subscription.appAccountToken}`;
    return 'no account token';
  }

  function devRow(subscription: Subscription): string {
    const who = whoOf(subscription);
    const what = `${subscription.product.name} subscription of ${who}`;
    const actions = DEV_ACTIONS.filter((action) => action.shown(subscription)).map((action) =>
      postButton(
        `/dev/subscriptions/${subscription.originalTransactionId}/${action.path}`,
        action.text,
        `${action.text} ${what}`,
      ),
    );
    const transaction = latestTransaction(subscription);
    let state = STATE_LABELS[subscription.state];
    if (isLive(subscription))
      state += subscription.autoRenew ? ', auto-renews' : ', auto-renew off';
    if (subscription.state === 'gracePeriod' && subscription.gracePeriodExpiresDate)
      state += ` until ${formatDate(subscription.gracePeriodExpiresDate)}`;
    const cells = [
      who,
      `${subscription.product.name} (${subscription.product.days} days, ${formatPrice(subscription.product.priceMilliunits)})`,
      subscription.environment,
      state,
      formatDate(transaction.expiresDate),
      subscription.transactions.map((each) => each.orderId).join(', '),
    ].map((cell) => `<td>${escapeHtml(cell)}</td>`);
    return `<tr data-original-transaction-id="${escapeHtml(subscription.originalTransactionId)}">${cells.join('')}<td class="actions">${actions.join('') || '—'}</td></tr>`;
  }

  function devPage(): string {
    const productOptions = [...products.values()]
      .map(
        (product) =>
          `<option value="${escapeHtml(product.productId)}">${escapeHtml(`${product.name} — ${product.days} days, ${formatPrice(product.priceMilliunits)}`)}</option>`,
      )
      .join('');
    const rows = [...subscriptions.values()].reverse().map(devRow).join('');
    return page(
      'App Store sandbox — subscriptions',
      `<div class="card">${BADGE}<h1>App Store sandbox — subscriptions</h1>
<p class="hint">Each button changes the subscription as the App Store would and delivers the signed App Store Server Notification (V2) it would send. An action Apple takes at the end of a period (a failed renewal, an expiry) ends the period now.</p>
<p class="hint">To let periods pass (renewals, expiries, grace periods ending), move the server's <a href="${escapeHtml(serverPage('/dev/clock'))}">development clock</a>.</p>
<h2>Subscribe</h2>
<form class="subscribe" method="post" action="/dev/subscribe">
<div class="row"><div><label for="email">Member email</label><input id="email" name="email" type="email" required autocomplete="off" placeholder="member@example.com"></div>
<div><label for="productId">Product</label><select id="productId" name="productId">${productOptions}</select></div>
<div><label for="environment">Environment</label><select id="environment" name="environment"><option value="Sandbox" selected>Sandbox</option><option value="Production">Production</option></select></div></div>
<p><label><input type="checkbox" name="signedOut" style="width:auto;height:auto"> Bought while signed out of the app: no appAccountToken (the member claims it on the web by its order ID)</label></p>
<button type="submit">Subscribe</button></form>
<h2>Subscriptions</h2>
<div class="scroll"><table><thead><tr><th>Member</th><th>Product</th><th>Environment</th><th>Status</th><th>Current period ends</th><th>Order IDs</th><th>Actions</th></tr></thead><tbody>${rows || '<tr><td colspan="7">No subscriptions yet.</td></tr>'}</tbody></table></div>
<h2>Test notification</h2>
<p class="hint">What App Store Connect's “Request a Test Notification” sends: a <code>TEST</code> notification without a transaction.</p>
${postButton('/dev/test', 'Send a TEST notification', 'Send a TEST notification')}</div>`,
      'wide',
    );
  }

  /** A page of the server this sandbox notifies (its /dev/clock). */
  function serverPage(path: string): string {
    const url =
      typeof options.notificationUrl === 'function'
        ? options.notificationUrl()
        : options.notificationUrl;
    return `${new URL(url).origin}${path}`;
  }

  function showDevPage({ response }: Exchange): void {
    sendHtml(response, 200, devPage());
  }

  function noSuchDevPage({ response }: Exchange): void {
    sendHtml(response, 404, page('Not found', '<p>No such page.</p>'));
  }

  /** The Subscribe form: the member is found by email, as the app would set appAccountToken. */
  function subscribeFromDevPage(exchange: Exchange): Promise<void> {
    return runDevAction(exchange, async (form) => {
      const email = (form.get('email') ?? '').trim();
      if (!email) throw new Refusal(400, 'Type the email of the member who subscribes.');
      let appAccountToken: string | undefined;
      // Signed out of the app: StoreKit sets no token, and the email is only the row's label.
      if (options.findAccountId && form.get('signedOut') !== 'on') {
        appAccountToken = await options.findAccountId(email);
        if (!appAccountToken)
          throw new Refusal(404, `No member with the email ${email}: sign up in the app first.`);
      }
      const environment = form.get('environment') === 'Production' ? 'Production' : 'Sandbox';
      await subscribe({
        productId: form.get('productId') ?? '',
        environment,
        email,
        ...(appAccountToken ? { appAccountToken } : {}),
      });
    });
  }

  function testFromDevPage(exchange: Exchange): Promise<void> {
    return runDevAction(exchange, () => test());
  }

  /** A subscription's button on the development page: the action on the subscription in its path. */
  function onSubscription(
    action: (originalTransactionId: string) => Promise<unknown>,
  ): PageHandler {
    return (exchange) =>
      runDevAction(exchange, () => action(exchange.param('originalTransactionId')));
  }

  /** A form of the development page: done, it answers 303 back to the page. */
  async function runDevAction(
    { request, response }: Exchange,
    action: (form: URLSearchParams) => Promise<unknown>,
  ): Promise<void> {
    const form = new URLSearchParams(await readBody(request));
    try {
      await action(form);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      return sendHtml(response, error.status, refusalPage(error));
    }
    response.writeHead(303, { location: '/dev' });
    response.end();
  }

  const server = createServer(
    serveRoutes(
      findRoute,
      ({ response }) => sendText(response, 404, 'Not found'),
      (response, error) => sendText(response, 500, String(error)),
    ),
  );

  const port = await listenOnLoopback(server, options.port);
  const baseUrl = `http://localhost:${port}`;
  return {
    baseUrl,
    devUrl: `${baseUrl}/dev`,
    rootCertificate: trusted.rootDer,
    serverApiCredentials: serverApiKey.credentials,
    sign: signPayload,
    subscribe: ({ productId, appAccountToken, environment, deliver: shouldDeliver }) =>
      subscribe({
        productId,
        ...(appAccountToken ? { appAccountToken } : {}),
        ...(environment ? { environment } : {}),
        ...(shouldDeliver !== undefined ? { deliver: shouldDeliver } : {}),
      }),
    orderIdsOf: (originalTransactionId) =>
      subscriptionOf(originalTransactionId).transactions.map((each) => each.orderId),
    renew,
    setAutoRenew,
    failToRenew,
    expireGracePeriod,
    expire,
    refund,
    reverseRefund,
    revoke,
    clockMoved: () =>
      passTheClock(subscriptions.values(), { renew, expire, expireGracePeriod }, Date.now()),
    test,
    requestConsumption,
    consumptionReports: () => consumption.reports(),
    failNextConsumptionCalls: (count) => consumption.failNext(count),
    failNotificationHistoryRequests: (count, failOptions) =>
      history.failRequests(count, failOptions),
    async close() {
      for (const timer of pendingDeliveries) clearTimeout(timer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
