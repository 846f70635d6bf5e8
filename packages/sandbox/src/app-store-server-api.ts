// The App Store Server API's side of the App Store sandbox: the API key a server signs its calls
// with, the bearer token checked as Apple checks it, and the order ids of Apple's receipt emails
// ("Order ID: MK5TTTVWJH") that Look Up Order ID takes. The sandbox (app-store-sandbox.ts) keeps
// the orders and answers the calls.
//
// Apple's rules for the token (App Store Server API, "Generating JSON Web Tokens for API
// requests"): ES256, header `kid` the key's id, payload `iss` the issuer id, `aud`
// `appstoreconnect-v1`, `bid` the app's bundle id, `iat` and `exp` no more than an hour apart and
// the token not expired, signed with the private key of that key id. Anything else answers 401.
import { generateKeyPairSync, type KeyObject, randomInt, randomUUID } from 'node:crypto';

import { jwtVerify } from 'jose';

/** What App Store Connect hands a developer for the App Store Server API (Users and Access → Keys). */
export interface ServerApiCredentials {
  /** The team's issuer id (a UUID). */
  issuerId: string;
  /** The key's id: 10 upper-case letters and digits. */
  keyId: string;
  /** The key itself, as the downloaded .p8 holds it: an EC P-256 private key in PKCS#8 PEM. */
  privateKeyPem: string;
}

export interface ServerApiKey {
  credentials: ServerApiCredentials;
  publicKey: KeyObject;
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const AUDIENCE = 'appstoreconnect-v1';
/** Apple refuses a token that claims to live longer than this. */
const LONGEST_TOKEN_SECONDS = 60 * 60;

/** Upper-case letters and digits, as Apple's key ids and order ids are made of. */
function appleStyleId(length: number): string {
  return Array.from({ length }, () => ID_ALPHABET[randomInt(ID_ALPHABET.length)]).join('');
}

/** A fresh API key, made at each start, as a developer would generate one in App Store Connect. */
export function makeServerApiKey(): ServerApiKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    credentials: {
      issuerId: randomUUID(),
      keyId: appleStyleId(10),
      privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    },
    publicKey,
  };
}

/** A new order id of 10 characters that `isTaken` does not know (Apple's are 10 to 12). */
export function newOrderId(isTaken: (orderId: string) => boolean): string {
  for (;;) {
    const orderId = appleStyleId(10);
    if (!isTaken(orderId)) return orderId;
  }
}

/** Whether an Authorization header carries a token Apple would take for this key and app. */
export async function isValidBearerToken(
  authorization: string | undefined,
  key: ServerApiKey,
  bundleId: string,
): Promise<boolean> {
  const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
  if (!token) return false;
  try {
    const { payload, protectedHeader } = await jwtVerify(token, key.publicKey, {
      algorithms: ['ES256'],
      issuer: key.credentials.issuerId,
      audience: AUDIENCE,
      requiredClaims: ['iat', 'exp'],
      maxTokenAge: LONGEST_TOKEN_SECONDS,
    });
    return (
      protectedHeader.kid === key.credentials.keyId &&
      payload.bid === bundleId &&
      (payload.exp ?? 0) - (payload.iat ?? 0) <= LONGEST_TOKEN_SECONDS
    );
  } catch {
    return false;
  }
}
