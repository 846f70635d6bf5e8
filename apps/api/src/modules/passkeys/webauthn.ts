// @simplewebauthn/server, loaded with the first passkey call rather than at start. Its
// certificate checks (for attestations that carry certificates) bring @peculiar/x509 and
// reflect-metadata, which patches the global Reflect: a process that never sees a passkey call
// does not carry them (apps/api/test/production-modules.test.ts checks what a start loads).
import type * as WebAuthn from '@simplewebauthn/server';

let loading: Promise<typeof WebAuthn> | undefined;

export function loadWebAuthn(): Promise<typeof WebAuthn> {
  loading ??= import('@simplewebauthn/server');
  return loading;
}
