// Examples of the passkey calls (call-example.ts says what an example is): Alex signs in on his
// iPhone with its passkey, and adds a second passkey on his Mac. The WebAuthn values are shaped as
// browsers send them (base64url); clientDataJSON holds the very challenge of the options.
// "Passkey removed" is the API's own word (apps/api/src/modules/passkeys/routes.ts).
import { PASSKEY_CHALLENGE_SECONDS } from '../passkeys';
import type { CallExamples } from './call-example';
import {
  AUTHENTICATOR_CODE,
  MAC_PASSKEY_ADDED_AT,
  MAC_PASSKEY_CREDENTIAL_ID,
  MAC_PASSKEY_ID,
  MAC_PASSKEY_NAME,
  MEMBER_EMAIL,
  PASSKEY_ADDED_AT,
  PASSKEY_CREDENTIAL_ID,
  PASSKEY_ID,
  PASSKEY_NAME,
  PASSKEY_USER_HANDLE,
  PHONE_SESSION_STARTED_AT,
  PHONE_TOKEN_PAIR,
  RELYING_PARTY_ID,
} from './story';

const PASSKEY_TIMEOUT_MS = PASSKEY_CHALLENGE_SECONDS * 1000;

/** The challenge of the registration options, and the one of the sign-in options. */
const REGISTRATION_CHALLENGE = 'pXW4aYu9k3xjT1JAmE8506NgKKlJbqEblQs1oNJGy7k';
const SIGN_IN_CHALLENGE = 'QxrWKC3q0h_89pDgGYe66fHpf3Xs0IQwKirXUUYFWoE';

/** base64url of {"type":"webauthn.create","challenge":REGISTRATION_CHALLENGE,"origin":PUBLIC_URL,…}. */
const REGISTRATION_CLIENT_DATA =
  'eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoicFhXNGFZdTlrM3hqVDFKQW1FODUwNk5nS0tsSmJxRWJsUXMxb05KR3k3ayIsIm9yaWdpbiI6Imh0dHBzOi8va2VnZWxjb2FjaC5hcHAiLCJjcm9zc09yaWdpbiI6ZmFsc2V9';
/** base64url of {"type":"webauthn.get","challenge":SIGN_IN_CHALLENGE,"origin":PUBLIC_URL,…}. */
const SIGN_IN_CLIENT_DATA =
  'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiUXhyV0tDM3EwaF84OXBEZ0dZZTY2ZkhwZjNYczBJUXdLaXJYVVVZRldvRSIsIm9yaWdpbiI6Imh0dHBzOi8va2VnZWxjb2FjaC5hcHAiLCJjcm9zc09yaWdpbiI6ZmFsc2V9';

const macPasskey = {
  id: MAC_PASSKEY_ID,
  name: MAC_PASSKEY_NAME,
  createdAt: MAC_PASSKEY_ADDED_AT,
  lastUsedAt: null,
  isSynced: true,
};
const phonePasskey = {
  id: PASSKEY_ID,
  name: PASSKEY_NAME,
  createdAt: PASSKEY_ADDED_AT,
  lastUsedAt: PHONE_SESSION_STARTED_AT,
  isSynced: true,
};

export const passkeyExamples: Pick<
  CallExamples,
  | 'passkeyRegistrationOptions'
  | 'registerPasskey'
  | 'passkeySignInOptions'
  | 'signInWithPasskey'
  | 'listPasskeys'
  | 'renamePasskey'
  | 'removePasskey'
> = {
  // Two-step sign-in is on: adding a passkey asks for a code.
  passkeyRegistrationOptions: {
    body: { code: AUTHENTICATOR_CODE },
    response: {
      challenge: REGISTRATION_CHALLENGE,
      rp: { name: 'Kegel Coach', id: RELYING_PARTY_ID },
      user: { id: PASSKEY_USER_HANDLE, name: MEMBER_EMAIL, displayName: MEMBER_EMAIL },
      pubKeyCredParams: [
        { alg: -8, type: 'public-key' },
        { alg: -7, type: 'public-key' },
        { alg: -257, type: 'public-key' },
      ],
      timeout: PASSKEY_TIMEOUT_MS,
      attestation: 'none',
      excludeCredentials: [
        { id: PASSKEY_CREDENTIAL_ID, type: 'public-key', transports: ['internal', 'hybrid'] },
      ],
      authenticatorSelection: {
        residentKey: 'required',
        userVerification: 'preferred',
        requireResidentKey: true,
      },
      extensions: { credProps: true },
      hints: [],
    },
  },
  registerPasskey: {
    body: {
      name: MAC_PASSKEY_NAME,
      response: {
        id: MAC_PASSKEY_CREDENTIAL_ID,
        rawId: MAC_PASSKEY_CREDENTIAL_ID,
        response: {
          clientDataJSON: REGISTRATION_CLIENT_DATA,
          attestationObject:
            'o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YViU8FM68WPoI82XD8Y0A7Dd8M7B5Qqp8rXO6kfaTWu6Yr4bMI0eiWg-Dr4G_gUJ5n3uESaOBRXGdLi_ZRNA276NnoZcc_9dNdWw-_jNWacQ4f4yMoAbvVhd9JanLII6FP42J5PCGGKVhFU1vnpQLH4',
          authenticatorData:
            'wxX8C5ygguhkFE8KTf_4vmAOkb-bE6cIq9Zrt2LDVEUXPskwy40X3xKdVe0URAwH2q0PFH2WswRnYgItS3M8HG8OyTND-Ycz_X5faFSJAktgKF1bom1IbJHTdeatQ4ytRpPjjdonUZLyBuj0wUwAy2svMJOSlWsPGd7WK3pIFjlUfeBBOlLDK1FsouPyXa7A6FX7vA',
          transports: ['hybrid', 'internal'],
          publicKeyAlgorithm: -7,
          publicKey:
            'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEensP29K_DARGtQ2enpeofiOZOwoNNmou-8UuKocSsgyMq3m8wI2yRnXOcpx53WXufB397foAb8oAIsGRDdCp1A',
        },
        authenticatorAttachment: 'platform',
        clientExtensionResults: { credProps: { rk: true } },
        type: 'public-key',
      },
    },
    response: macPasskey,
  },
  passkeySignInOptions: {
    response: {
      rpId: RELYING_PARTY_ID,
      challenge: SIGN_IN_CHALLENGE,
      timeout: PASSKEY_TIMEOUT_MS,
      userVerification: 'preferred',
    },
  },
  signInWithPasskey: {
    body: {
      response: {
        id: PASSKEY_CREDENTIAL_ID,
        rawId: PASSKEY_CREDENTIAL_ID,
        response: {
          clientDataJSON: SIGN_IN_CLIENT_DATA,
          authenticatorData: 'ZzwuF3arWBwRQlidRdXKUkjTjbkzl2d20qtbkIonDy9Zh8yT4A',
          signature:
            'MEUCIEvn8_lQNbGJn-rf2GXXg6HqWLZXV5ecHcXPvxzAaQepUym1GeMu_t0IK7kWkdYGXu2dh6SI7t2EmhjG9OEwMJeBu',
          userHandle: PASSKEY_USER_HANDLE,
        },
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        type: 'public-key',
      },
    },
    response: PHONE_TOKEN_PAIR,
  },
  listPasskeys: { response: { data: [phonePasskey, macPasskey] } },
  renamePasskey: {
    params: { id: PASSKEY_ID },
    body: { name: "Alex's iPhone" },
    response: { ...phonePasskey, name: "Alex's iPhone" },
  },
  // Two-step sign-in is on: removing a passkey asks for a code.
  removePasskey: {
    params: { id: MAC_PASSKEY_ID },
    body: { code: AUTHENTICATOR_CODE },
    response: { message: 'Passkey removed' },
  },
};
