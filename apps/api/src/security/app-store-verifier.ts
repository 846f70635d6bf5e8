// Verifies what the App Store signs (notifications, and the transactions the iOS app posts) with
// Apple's own library: the x5c chain up to the configured roots, the certificates' Apple OIDs,
// ES256, the bundle id, the environment and, in Production, the app's Apple id. A payload is
// verified by the verifier of the environment it claims: App Review and TestFlight buy in the
// Sandbox against the production server, so both are honoured unless the Sandbox is refused.
// Nothing is decoded for use without being verified; Xcode and local-testing payloads, which the
// library would accept unsigned, are refused outright.
import type {
  JWSRenewalInfoDecodedPayload,
  JWSTransactionDecodedPayload,
  ResponseBodyV2DecodedPayload,
  SignedDataVerifier,
} from '@apple/app-store-server-library';

import { loadAppStoreLibrary } from './app-store-library';

export interface AppStoreVerifierSettings {
  bundleId: string;
  appAppleId: number | undefined;
  refuseSandbox: boolean;
  rootCertificates: Buffer[];
}

export type AppStoreEnvironment = 'Sandbox' | 'Production';

export interface VerifiedNotification {
  notification: ResponseBodyV2DecodedPayload;
  environment: AppStoreEnvironment;
  transaction: JWSTransactionDecodedPayload | undefined;
  renewal: JWSRenewalInfoDecodedPayload | undefined;
}

/** A payload that did not verify, or is refused here: the call answers 400 and writes nothing. */
export class AppStorePayloadRefused extends Error {}

/** The environment a JWS says it is from, read without trusting it, to pick the verifier. */
function claimedEnvironment(jws: string, read: (payload: Record<string, unknown>) => unknown) {
  try {
    const payload = JSON.parse(
      Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8'),
    ) as Record<string, unknown>;
    const environment = read(payload);
    return typeof environment === 'string' ? environment : undefined;
  } catch {
    return undefined;
  }
}

export type AppStoreVerifier = ReturnType<typeof createAppStoreVerifier>;

/** Any failure of Apple's library, told as a refused payload. */
async function verified<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppStorePayloadRefused) throw error;
    throw new AppStorePayloadRefused('App Store signature verification failed');
  }
}

/**
 * The verifier of the environment a payload claims, if this server accepts that environment.
 * Apple's verifiers are made with the first payload (the library loads then): the refusals that
 * need no verifier are decided before it, as they were.
 */
function environmentVerifiers(settings: AppStoreVerifierSettings) {
  let made: Promise<{ sandbox: SignedDataVerifier; production?: SignedDataVerifier }> | undefined;
  async function makeVerifiers() {
    const { Environment, SignedDataVerifier } = await loadAppStoreLibrary();
    // enableOnlineChecks: false: certificate dates are checked against the payload's signedDate
    // (a notification retried for days stays valid), and no OCSP call can hang a webhook.
    return {
      sandbox: new SignedDataVerifier(
        settings.rootCertificates,
        false,
        Environment.SANDBOX,
        settings.bundleId,
      ),
      production:
        settings.appAppleId === undefined
          ? undefined
          : new SignedDataVerifier(
              settings.rootCertificates,
              false,
              Environment.PRODUCTION,
              settings.bundleId,
              settings.appAppleId,
            ),
    };
  }

  function verifierFor(environment: string | undefined): {
    verifier: () => Promise<SignedDataVerifier>;
    environment: AppStoreEnvironment;
  } {
    const verifiers = () => (made ??= makeVerifiers());
    if (environment === 'Sandbox') {
      if (settings.refuseSandbox) throw new AppStorePayloadRefused('Sandbox payloads are refused');
      return { verifier: async () => (await verifiers()).sandbox, environment: 'Sandbox' };
    }
    if (environment === 'Production') {
      if (settings.appAppleId === undefined) {
        throw new AppStorePayloadRefused('Production payloads need APPLE_APP_APPLE_ID');
      }
      return {
        verifier: async () => {
          const { production } = await verifiers();
          if (!production) throw new Error('no production verifier without an Apple id');
          return production;
        },
        environment: 'Production',
      };
    }
    throw new AppStorePayloadRefused('Not an App Store payload');
  }

  return verifierFor;
}

export function createAppStoreVerifier(settings: AppStoreVerifierSettings) {
  const verifierFor = environmentVerifiers(settings);
  return {
    async verifyNotification(signedPayload: string): Promise<VerifiedNotification> {
      const { verifier, environment } = verifierFor(
        claimedEnvironment(signedPayload, (payload) => {
          const data = (payload.data ?? payload.summary) as Record<string, unknown> | undefined;
          return data?.environment;
        }),
      );
      return verified(async () => {
        const verifierOfEnvironment = await verifier();
        const notification = await verifierOfEnvironment.verifyAndDecodeNotification(signedPayload);
        const data = notification.data;
        return {
          notification,
          environment,
          transaction: data?.signedTransactionInfo
            ? await verifierOfEnvironment.verifyAndDecodeTransaction(data.signedTransactionInfo)
            : undefined,
          renewal: data?.signedRenewalInfo
            ? await verifierOfEnvironment.verifyAndDecodeRenewalInfo(data.signedRenewalInfo)
            : undefined,
        };
      });
    },

    async verifyTransaction(
      signedTransaction: string,
    ): Promise<{ transaction: JWSTransactionDecodedPayload; environment: AppStoreEnvironment }> {
      const { verifier, environment } = verifierFor(
        claimedEnvironment(signedTransaction, (payload) => payload.environment),
      );
      return verified(async () => ({
        transaction: await (await verifier()).verifyAndDecodeTransaction(signedTransaction),
        environment,
      }));
    },
  };
}
