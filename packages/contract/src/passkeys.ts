// Passkeys (WebAuthn): the options the server hands the browser's passkey dialog, the answers the
// browser sends back, and a member's list of passkeys. The shapes are WebAuthn's JSON forms
// (PublicKeyCredentialCreationOptionsJSON and its kin), so the web app passes them to
// @simplewebauthn/browser as they come and the server verifies them with @simplewebauthn/server.
import * as z from 'zod/mini';

import { IsoDateTimeSchema, PATH_PARAMETER_MAX_LENGTH } from './fields';
import { fieldMessages } from './field-messages';
import { SecondFactorCodeSchema } from './two-step';

/** base64url, as WebAuthn's JSON forms carry every binary value; bounded like any input. */
const base64Url = (maxLength: number) =>
  z.string().check(z.minLength(1), z.maxLength(maxLength), z.regex(/^[A-Za-z0-9_-]*={0,2}$/));

export const PasskeyTransportSchema = z.enum([
  'ble',
  'cable',
  'hybrid',
  'internal',
  'nfc',
  'smart-card',
  'usb',
]);
export type PasskeyTransport = z.infer<typeof PasskeyTransportSchema>;

const CredentialDescriptorSchema = z.object({
  id: z.string(),
  type: z.literal('public-key'),
  transports: z.optional(z.array(PasskeyTransportSchema)),
});

const UserVerificationSchema = z.enum(['required', 'preferred', 'discouraged']);
const HintsSchema = z.array(z.enum(['hybrid', 'security-key', 'client-device']));

/** What `navigator.credentials.create()` needs to make a passkey (its JSON form). */
export const PasskeyCreationOptionsSchema = z.object({
  rp: z.object({ name: z.string(), id: z.optional(z.string()) }),
  user: z.object({ id: z.string(), name: z.string(), displayName: z.string() }),
  challenge: z.string(),
  pubKeyCredParams: z.array(z.object({ alg: z.number(), type: z.literal('public-key') })),
  timeout: z.optional(z.number()),
  /** The member's passkeys already made: an authenticator holding one makes no second. */
  excludeCredentials: z.optional(z.array(CredentialDescriptorSchema)),
  authenticatorSelection: z.optional(
    z.object({
      authenticatorAttachment: z.optional(z.enum(['platform', 'cross-platform'])),
      requireResidentKey: z.optional(z.boolean()),
      residentKey: z.optional(z.enum(['discouraged', 'preferred', 'required'])),
      userVerification: z.optional(UserVerificationSchema),
    }),
  ),
  hints: z.optional(HintsSchema),
  attestation: z.optional(z.enum(['direct', 'enterprise', 'indirect', 'none'])),
  extensions: z.optional(z.object({ credProps: z.optional(z.boolean()) })),
});
export type PasskeyCreationOptions = z.infer<typeof PasskeyCreationOptionsSchema>;

/** What `navigator.credentials.get()` needs to sign in with a passkey (its JSON form). */
export const PasskeyRequestOptionsSchema = z.object({
  challenge: z.string(),
  timeout: z.optional(z.number()),
  rpId: z.optional(z.string()),
  allowCredentials: z.optional(z.array(CredentialDescriptorSchema)),
  userVerification: z.optional(UserVerificationSchema),
  hints: z.optional(HintsSchema),
});
export type PasskeyRequestOptions = z.infer<typeof PasskeyRequestOptionsSchema>;

/** The extensions' results a browser reports; none of them is relied on. */
const ClientExtensionResultsSchema = z.object({
  appid: z.optional(z.boolean()),
  credProps: z.optional(z.object({ rk: z.optional(z.boolean()) })),
  hmacCreateSecret: z.optional(z.boolean()),
});

/** The new passkey, as the browser reports it (RegistrationResponseJSON). */
export const PasskeyRegistrationResponseSchema = z.object({
  id: base64Url(1024),
  rawId: base64Url(1024),
  response: z.object({
    clientDataJSON: base64Url(4096),
    attestationObject: base64Url(32_768),
    authenticatorData: z.optional(base64Url(16_384)),
    transports: z.optional(z.array(z.string().check(z.maxLength(32))).check(z.maxLength(16))),
    publicKeyAlgorithm: z.optional(z.number()),
    publicKey: z.optional(base64Url(4096)),
  }),
  authenticatorAttachment: z.optional(z.enum(['platform', 'cross-platform'])),
  clientExtensionResults: ClientExtensionResultsSchema,
  type: z.literal('public-key'),
});
export type PasskeyRegistrationResponse = z.infer<typeof PasskeyRegistrationResponseSchema>;

/** A passkey's signature, as the browser reports it (AuthenticationResponseJSON). */
export const PasskeyAuthenticationResponseSchema = z.object({
  id: base64Url(1024),
  rawId: base64Url(1024),
  response: z.object({
    clientDataJSON: base64Url(4096),
    authenticatorData: base64Url(16_384),
    signature: base64Url(2048),
    userHandle: z.optional(base64Url(128)),
  }),
  authenticatorAttachment: z.optional(z.enum(['platform', 'cross-platform'])),
  clientExtensionResults: ClientExtensionResultsSchema,
  type: z.literal('public-key'),
});
export type PasskeyAuthenticationResponse = z.infer<typeof PasskeyAuthenticationResponseSchema>;

export const PASSKEY_NAME_MAX_LENGTH = 64;

/** How long a challenge may be answered: one passkey dialog, with time to spare. */
export const PASSKEY_CHALLENGE_SECONDS = 5 * 60;

/** A passkey's name, as the member reads it in his list ("iPhone", "YubiKey on the desk"). */
export const PasskeyNameSchema = z
  .string()
  .check(
    z.trim(),
    z.minLength(1, fieldMessages.required),
    z.maxLength(PASSKEY_NAME_MAX_LENGTH, fieldMessages.passkeyNameTooLong),
  );

export const RegisterPasskeyRequestSchema = z.object({
  response: PasskeyRegistrationResponseSchema,
  /** Without one, the passkey is named after the browser and system it was made on. */
  name: z.optional(PasskeyNameSchema),
});
export type RegisterPasskeyRequest = z.infer<typeof RegisterPasskeyRequestSchema>;

/**
 * Asking to add a passkey: while two-step sign-in is on, a current code or a recovery code, as a
 * passkey signs in with no code at all (a stolen session must not plant one).
 */
export const PasskeyRegistrationOptionsRequestSchema = z.optional(
  z.nullable(z.object({ code: z.optional(SecondFactorCodeSchema) })),
);
export type PasskeyRegistrationOptionsRequest = z.infer<
  typeof PasskeyRegistrationOptionsRequestSchema
>;

export const PasskeySignInRequestSchema = z.object({
  response: PasskeyAuthenticationResponseSchema,
});
export type PasskeySignInRequest = z.infer<typeof PasskeySignInRequestSchema>;

/** One of the member's passkeys, as his list shows it: never its key. */
export const PasskeyItemSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: IsoDateTimeSchema,
  /** Its latest sign-in; null until it signs in once. */
  lastUsedAt: z.nullable(IsoDateTimeSchema),
  /** Synced by a password manager or platform (iCloud Keychain, Google Password Manager). */
  isSynced: z.boolean(),
});
export type PasskeyItem = z.infer<typeof PasskeyItemSchema>;

export const PasskeysResponseSchema = z.object({ data: z.array(PasskeyItemSchema) });
export type PasskeysResponse = z.infer<typeof PasskeysResponseSchema>;

export const PasskeyParamsSchema = z.object({
  id: z.string().check(z.maxLength(PATH_PARAMETER_MAX_LENGTH)),
});

export const RenamePasskeyRequestSchema = z.object({ name: PasskeyNameSchema });

/** Removing a passkey: while two-step sign-in is on, a current code or a recovery code. */
export const RemovePasskeyRequestSchema = z.optional(
  z.nullable(z.object({ code: z.optional(SecondFactorCodeSchema) })),
);
export type RemovePasskeyRequest = z.infer<typeof RemovePasskeyRequestSchema>;
export type RenamePasskeyRequest = z.infer<typeof RenamePasskeyRequestSchema>;
