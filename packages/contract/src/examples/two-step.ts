// Examples of the two-step sign-in calls (call-example.ts says what an example is).
import { twoStepMessages } from '../messages';
import type { CallExamples } from './call-example';
import {
  AUTHENTICATOR_CODE,
  AUTHENTICATOR_SECRET,
  AUTHENTICATOR_URL,
  MFA_TOKEN,
  RECOVERY_CODE,
  RECOVERY_CODES,
  TOKEN_PAIR,
} from './story';

/** The codes a renewal gives: new ones, the old ones stop working. */
const RENEWED_RECOVERY_CODES = [
  'x8mq-3v7d-kc2e-5w9h',
  'b4tn-j6r0-9fpa-zq1k',
  'h2ws-e8y5-m7cd-4tgr',
  '0vkb-q3n9-a6xe-jm5s',
  'p7ry-2d4h-w0tc-8kzf',
  'e5jg-9m1q-s3va-6ybn',
  'tc0w-k8e2-7hpr-d4mx',
  '3zfs-v6gy-1nbq-w9ea',
  'n1dk-5x0t-rg8m-2cjh',
  'w6ae-7b3s-qt5z-0fvp',
];

export const twoStepExamples: Pick<
  CallExamples,
  'setUpTwoStep' | 'confirmTwoStep' | 'turnOffTwoStep' | 'renewRecoveryCodes' | 'verifyTwoStep'
> = {
  setUpTwoStep: {
    response: { secret: AUTHENTICATOR_SECRET, otpauthUrl: AUTHENTICATOR_URL },
  },
  confirmTwoStep: {
    body: { code: AUTHENTICATOR_CODE },
    response: { recoveryCodes: RECOVERY_CODES },
  },
  // With a recovery code (his phone is elsewhere); `code` would take the app's instead.
  turnOffTwoStep: {
    body: { recoveryCode: RECOVERY_CODE },
    response: { message: twoStepMessages.turnedOff },
  },
  renewRecoveryCodes: {
    body: { code: AUTHENTICATOR_CODE },
    response: { recoveryCodes: RENEWED_RECOVERY_CODES },
  },
  verifyTwoStep: {
    body: { mfaToken: MFA_TOKEN, code: AUTHENTICATOR_CODE },
    response: TOKEN_PAIR,
  },
};
