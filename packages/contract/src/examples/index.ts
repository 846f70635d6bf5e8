// Every call's example, one place: the API document shows them and the tests send them. Kept out
// of the package's main entry so that no page of the web app carries them.
import { accountExamples } from './account';
import type { CallExamples } from './call-example';
import { healthExamples } from './health';
import { passkeyExamples } from './passkeys';
import { paymentExamples } from './payments';
import { profileExamples } from './profile';
import { socialExamples } from './social';
import { supportDeskExamples } from './support-desk';
import { twoStepExamples } from './two-step';

export type { CallExample, CallExamples } from './call-example';

/** The full type: a call of endpoints.ts without its example does not compile. */
export const callExamples: CallExamples = {
  ...healthExamples,
  ...accountExamples,
  ...twoStepExamples,
  ...socialExamples,
  ...passkeyExamples,
  ...profileExamples,
  ...paymentExamples,
  ...supportDeskExamples,
};
