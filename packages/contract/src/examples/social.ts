// Examples of the Google and Apple sign-in calls (call-example.ts says what an example is).
import type { CallExamples } from './call-example';
import {
  APPLE_ID_TOKEN,
  APPLE_NONCE,
  GOOGLE_AUTHORIZATION_CODE,
  MFA_TOKEN,
  PUBLIC_URL,
} from './story';

export const socialExamples: Pick<
  CallExamples,
  'signInWithGoogle' | 'signInWithApple' | 'issueAppleNonce' | 'listSocialProviders'
> = {
  // Two-step sign-in is on for Alex: Google's and Apple's sign-ins owe a code too.
  signInWithGoogle: {
    body: { code: GOOGLE_AUTHORIZATION_CODE, clientType: 'WEB' },
    response: { mfaRequired: true, mfaToken: MFA_TOKEN },
  },
  signInWithApple: {
    body: { token: APPLE_ID_TOKEN },
    response: { mfaRequired: true, mfaToken: MFA_TOKEN },
  },
  issueAppleNonce: { response: { nonce: APPLE_NONCE } },
  listSocialProviders: {
    response: {
      google: {
        clientId: '483920175526-k3v8q1m5n7d2h4j6f9s0a1b2c3d4e5f6.apps.googleusercontent.com',
        scriptUrl: 'https://accounts.google.com/gsi/client',
      },
      apple: {
        clientId: 'app.kegelcoach.web',
        scriptUrl:
          'https://appleid.cdn-apple.com/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js',
        redirectUri: `${PUBLIC_URL}/auth/login`,
      },
    },
  },
};
