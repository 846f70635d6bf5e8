// Google and Apple sign-in settings: each provider runs on its real endpoints (a client id is
// configured), on the local identity sandbox (development without a client id), or is off
// (production without a client id). The social module reads `app.identity`; the web app is told
// what to load through `providers`.
import type { SocialProvidersResponse } from '@kegel/contract';
import type { IdentitySandbox } from '@kegel/sandbox/identity-sandbox';
import fp from 'fastify-plugin';

import type { Config } from '../config';
import {
  createGoogleCodeExchange,
  type GoogleCodeExchange,
} from '../security/google-code-exchange';
import { createIdTokenVerifier, type IdTokenVerifier } from '../security/id-token-verifier';

export interface IdentitySettings {
  google: { exchange: GoogleCodeExchange; verifier: IdTokenVerifier } | undefined;
  apple: { verifier: IdTokenVerifier } | undefined;
  /** What the web app needs to start each provider's sign-in (null: switched off). */
  providers: SocialProvidersResponse;
}

declare module 'fastify' {
  interface FastifyInstance {
    identity: IdentitySettings;
    /** The local Google/Apple stand-in, when this server runs one (development and tests). */
    identitySandbox: IdentitySandbox | null;
  }
}

type IdentityConfig = Pick<Config, 'google' | 'apple' | 'publicUrl' | 'appStore'>;

export const identityPlugin = fp<{ config: IdentityConfig }>(
  async function identityPlugin(app, { config }) {
    let sandbox: IdentitySandbox | undefined;
    if (config.google === 'sandbox' || config.apple === 'sandbox') {
      // Loaded here only: production, which refuses the sandbox, never carries it.
      const { startIdentitySandbox } = await import('@kegel/sandbox/identity-sandbox');
      sandbox = await startIdentitySandbox({
        google: { clientId: SANDBOX_GOOGLE_CLIENT.id, clientSecret: SANDBOX_GOOGLE_CLIENT.secret },
        apple: { clientId: SANDBOX_APPLE_CLIENT_ID },
        // The app's own origin, and Vite's dev server (npm run dev:web) that proxies to it.
        allowedOrigins: [new URL(config.publicUrl).origin, 'http://localhost:5173'],
      });
      app.log.info(
        `no GOOGLE_CLIENT_ID / APPLE_CLIENT_ID: sign-in goes to the local identity sandbox, ${sandbox.baseUrl}`,
      );
    }
    app.decorate('identity', identitySettings(config, sandbox));
    // Tests mint codes and tokens through it; nothing in the product reads it.
    app.decorate('identitySandbox', sandbox ?? null);
    app.addHook('onClose', async () => {
      await sandbox?.close();
    });
  },
  { name: 'identity' },
);

/** The sandbox's own client registrations: only the sandbox and this server know them. */
const SANDBOX_GOOGLE_CLIENT = {
  id: 'kegel-coach-sandbox.apps.googleusercontent.com',
  secret: 'sandbox-secret',
};
const SANDBOX_APPLE_CLIENT_ID = 'app.kegelcoach.sandbox.web';

const GOOGLE_SCRIPT_URL = 'https://accounts.google.com/gsi/client';
const APPLE_SCRIPT_URL =
  'https://appleid.cdn-apple.com/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js';

function identitySettings(
  config: IdentityConfig,
  sandbox: IdentitySandbox | undefined,
): IdentitySettings {
  const google =
    config.google === 'sandbox' && sandbox
      ? {
          issuer: sandbox.google.issuer,
          clientId: SANDBOX_GOOGLE_CLIENT.id,
          clientSecret: SANDBOX_GOOGLE_CLIENT.secret,
          scriptUrl: sandbox.google.scriptUrl,
        }
      : typeof config.google === 'object'
        ? { ...config.google, scriptUrl: GOOGLE_SCRIPT_URL }
        : undefined;
  const apple =
    config.apple === 'sandbox' && sandbox
      ? {
          issuer: sandbox.apple.issuer,
          jwksUrl: sandbox.apple.jwksUrl,
          clientId: SANDBOX_APPLE_CLIENT_ID,
          scriptUrl: sandbox.apple.scriptUrl,
        }
      : typeof config.apple === 'object'
        ? { ...config.apple, scriptUrl: APPLE_SCRIPT_URL }
        : undefined;

  const googleExchange = google && createGoogleCodeExchange(google);
  return {
    google:
      google && googleExchange
        ? {
            exchange: googleExchange,
            verifier: createIdTokenVerifier({
              jwksUrl: () => googleExchange.jwksUrl(),
              issuers: [google.issuer],
              audience: google.clientId,
            }),
          }
        : undefined,
    apple: apple
      ? {
          verifier: createIdTokenVerifier({
            jwksUrl: apple.jwksUrl,
            issuers: [apple.issuer],
            // The iOS app's own Sign in with Apple issues tokens for its bundle id.
            audience: [apple.clientId, ...iosBundleIds(config)],
          }),
        }
      : undefined,
    providers: {
      google: google ? { clientId: google.clientId, scriptUrl: google.scriptUrl } : null,
      // Apple's popup returns to the login page (see docs/sign-in.md).
      apple: apple
        ? {
            clientId: apple.clientId,
            scriptUrl: apple.scriptUrl,
            redirectUri: `${config.publicUrl}/auth/login`,
          }
        : null,
    },
  };
}

/** The iOS app's bundle id, whose Apple identity tokens are accepted beside the web's. */
function iosBundleIds(config: IdentityConfig): string[] {
  if (typeof config.appStore === 'object') return [config.appStore.bundleId];
  return config.appStore === 'sandbox' ? [SANDBOX_IOS_BUNDLE_ID] : [];
}

/** The App Store sandbox's app (plugins/app-store.ts): its bundle id signs in too in development. */
const SANDBOX_IOS_BUNDLE_ID = 'app.kegelcoach.ios';
