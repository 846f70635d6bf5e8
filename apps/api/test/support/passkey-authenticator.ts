// A software passkey authenticator for the tests: what a phone or a security key does when the
// browser asks it to make a passkey or to sign in with one, written out with node:crypto. Its
// answers are real WebAuthn responses (an ES256 key pair, authenticator data, a 'none'
// attestation in CBOR, clientDataJSON), so the server checks them exactly as it checks a
// browser's; each `with…` option spoils one part, for the tests of the refusals.
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

import type {
  PasskeyAuthenticationResponse,
  PasskeyCreationOptions,
  PasskeyItem,
  PasskeyRegistrationResponse,
  PasskeyRequestOptions,
} from '@kegel/contract';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

import { post } from './accounts';
import { TEST_PUBLIC_URL } from './test-app';

type CborValue = number | string | Uint8Array | Map<number | string, CborValue>;

/** The few CBOR shapes WebAuthn needs: integers, text, bytes and maps (RFC 8949). */
function cbor(value: CborValue): Buffer {
  const head = (major: number, length: number): Buffer => {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
    if (length < 0x10000) {
      const bytes = Buffer.alloc(3);
      bytes[0] = (major << 5) | 25;
      bytes.writeUInt16BE(length, 1);
      return bytes;
    }
    const bytes = Buffer.alloc(5);
    bytes[0] = (major << 5) | 26;
    bytes.writeUInt32BE(length, 1);
    return bytes;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, text.length), text]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const entries = [...value.entries()].flatMap(([key, entry]) => [cbor(key), cbor(entry)]);
  return Buffer.concat([head(5, value.size), ...entries]);
}

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** authenticatorData's flags: user present, user verified, backup eligible and state, AT. */
const FLAGS = { userPresent: 0x01, userVerified: 0x04, backupEligible: 0x08, backedUp: 0x10 };
const ATTESTED_CREDENTIAL_DATA = 0x40;

export interface PasskeyAuthenticatorOptions {
  /** The signature counter's first value; 0 stays 0 (as synced passkeys do), else it rises. */
  counter?: number;
  /** A synced passkey (iCloud Keychain, Google Password Manager): backup eligible and done. */
  synced?: boolean;
  transports?: string[];
  /**
   * Whether the authenticator checks its owner (PIN, fingerprint) and says so (the UV flag): a
   * security key that is only touched answers false. True by default.
   */
  userVerified?: boolean;
}

export interface AnswerOptions {
  /** The page the browser says it is on (a phishing page's, for the refusals). */
  origin?: string;
  rpId?: string;
  /** Another challenge than the options' (a replay of an older answer's). */
  challenge?: string;
  /** The signature counter this answer reports, instead of the next one. */
  counter?: number;
  /** Sign with another key than the passkey's (a forged answer). */
  signWith?: KeyObject;
  /** The user handle reported at sign-in (the account's, by default). */
  userHandle?: string;
}

export type PasskeyAuthenticator = ReturnType<typeof createPasskeyAuthenticator>;

export function createPasskeyAuthenticator(options: PasskeyAuthenticatorOptions = {}) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const credentialId = randomBytes(32);
  const id = credentialId.toString('base64url');
  const jwk = publicKey.export({ format: 'jwk' });
  let counter = options.counter ?? 0;
  let userHandle: string | undefined;
  const flags =
    FLAGS.userPresent |
    (options.userVerified === false ? 0 : FLAGS.userVerified) |
    (options.synced ? FLAGS.backupEligible | FLAGS.backedUp : 0);
  const defaultOrigin = new URL(TEST_PUBLIC_URL).origin;
  const defaultRpId = new URL(TEST_PUBLIC_URL).hostname;

  function authenticatorData(rpId: string, extraFlags: number, count: number): Buffer {
    const countBytes = Buffer.alloc(4);
    countBytes.writeUInt32BE(count);
    return Buffer.concat([sha256(rpId), Buffer.from([flags | extraFlags]), countBytes]);
  }

  function clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  const nextCounter = (answer: AnswerOptions) => {
    if (answer.counter !== undefined) return answer.counter;
    if (counter > 0) counter += 1;
    return counter;
  };

  return {
    /** The credential id (base64url), as the server lists it. */
    id,
    privateKey,

    /** What navigator.credentials.create() answers: a new passkey, attested 'none'. */
    register(
      creation: PasskeyCreationOptions,
      answer: AnswerOptions = {},
    ): PasskeyRegistrationResponse {
      userHandle = creation.user.id;
      const coseKey = new Map<number, CborValue>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x ?? '', 'base64url')],
        [-3, Buffer.from(jwk.y ?? '', 'base64url')],
      ]);
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(credentialId.length);
      const authData = Buffer.concat([
        authenticatorData(answer.rpId ?? defaultRpId, ATTESTED_CREDENTIAL_DATA, counter),
        Buffer.alloc(16), // aaguid: none
        idLength,
        credentialId,
        cbor(coseKey),
      ]);
      const attestationObject = cbor(
        new Map<string, CborValue>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', authData],
        ]),
      );
      const clientDataJSON = clientData(
        'webauthn.create',
        answer.challenge ?? creation.challenge,
        answer.origin ?? defaultOrigin,
      );
      return {
        id,
        rawId: id,
        response: {
          clientDataJSON: clientDataJSON.toString('base64url'),
          attestationObject: attestationObject.toString('base64url'),
          transports: options.transports ?? ['internal', 'hybrid'],
        },
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        type: 'public-key',
      };
    },

    /** What navigator.credentials.get() answers: the challenge signed with the passkey. */
    signIn(
      request: PasskeyRequestOptions,
      answer: AnswerOptions = {},
    ): PasskeyAuthenticationResponse {
      const authData = authenticatorData(answer.rpId ?? defaultRpId, 0, nextCounter(answer));
      const clientDataJSON = clientData(
        'webauthn.get',
        answer.challenge ?? request.challenge,
        answer.origin ?? defaultOrigin,
      );
      const signature = sign(
        'sha256',
        Buffer.concat([authData, sha256(clientDataJSON)]),
        answer.signWith ?? privateKey,
      );
      const handle = answer.userHandle ?? userHandle;
      return {
        id,
        rawId: id,
        response: {
          clientDataJSON: clientDataJSON.toString('base64url'),
          authenticatorData: authData.toString('base64url'),
          signature: signature.toString('base64url'),
          ...(handle ? { userHandle: handle } : {}),
        },
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        type: 'public-key',
      };
    },
  };
}

/**
 * Asks for registration options as the signed-in member of `accessToken`, with `code` (a current
 * code or a recovery code) while two-step sign-in is on.
 */
export async function registrationOptions(
  app: FastifyInstance,
  accessToken: string,
  code?: string,
): Promise<PasskeyCreationOptions> {
  const response = await post(
    app,
    '/auth/passkeys/register/options',
    code === undefined ? {} : { code },
    accessToken,
  );
  expect(response.statusCode, response.body).toBe(200);
  return response.json<PasskeyCreationOptions>();
}

/** Adds the authenticator's passkey to the account of `accessToken`, as Account Settings does. */
export async function addPasskey(
  app: FastifyInstance,
  accessToken: string,
  authenticator: PasskeyAuthenticator,
  name?: string,
): Promise<PasskeyItem> {
  const options = await registrationOptions(app, accessToken);
  const response = await post(
    app,
    '/auth/passkeys/register/verify',
    { response: authenticator.register(options), ...(name ? { name } : {}) },
    accessToken,
  );
  expect(response.statusCode, response.body).toBe(201);
  return response.json<PasskeyItem>();
}

export async function signInOptions(app: FastifyInstance): Promise<PasskeyRequestOptions> {
  const response = await post(app, '/auth/passkeys/login/options', {});
  expect(response.statusCode, response.body).toBe(200);
  return response.json<PasskeyRequestOptions>();
}

/** Signs in with the authenticator's passkey, as the sign-in page does; the raw answer. */
export async function signInWithPasskey(
  app: FastifyInstance,
  authenticator: PasskeyAuthenticator,
  answer: AnswerOptions = {},
): Promise<LightMyRequestResponse> {
  const options = await signInOptions(app);
  return post(app, '/auth/passkeys/login/verify', {
    response: authenticator.signIn(options, answer),
  });
}
