// Examples of the health calls (call-example.ts says what an example is).
import type { CallExamples } from './call-example';

export const healthExamples: Pick<CallExamples, 'health' | 'ready'> = {
  health: { response: { status: 'ok' } },
  ready: { response: { status: 'ok' } },
};
