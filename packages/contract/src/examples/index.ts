// Every call's example, one place: the API document shows them and the tests send them. Kept out
// of the package's main entry so that no page of the web app carries them.
import type { CallExamples } from './call-example';
import { healthExamples } from './health';

export type { CallExample, CallExamples } from './call-example';

// Partial while the examples are written, area by area; the full type then holds every call.
export const callExamples: Partial<CallExamples> = {
  ...healthExamples,
};
