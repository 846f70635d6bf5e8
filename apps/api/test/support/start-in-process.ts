import { vi } from 'vitest';

import { withExactEnvironment } from './test-env';

export interface InProcessExit {
  /** What main.ts passed to process.exit; undefined when it did not call it. */
  code: number | undefined;
  stderr: string;
}

/**
 * Runs the real entry point, src/main.ts, inside this test process: the same code path as
 * `npm start` from its environment to its exit, without the seconds a new process spends loading
 * the server. process.exit and stderr are caught instead of ending the test run. For start
 * failures only: a start that succeeds would go on listening.
 */
export async function startInProcess(env: Record<string, string>): Promise<InProcessExit> {
  let code: number | undefined;
  let stderr = '';
  const exit = vi.spyOn(process, 'exit').mockImplementation(((exitCode?: number) => {
    code ??= exitCode;
  }) as typeof process.exit);
  const write = vi
    .spyOn(process.stderr, 'write')
    .mockImplementation((chunk: string | Uint8Array) => {
      stderr += chunk.toString();
      return true;
    });
  try {
    // main.ts starts at import; a fresh module registry makes it start again each time.
    vi.resetModules();
    await withExactEnvironment(
      { NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env },
      () => import('../../src/main'),
    );
  } finally {
    write.mockRestore();
    exit.mockRestore();
  }
  return { code, stderr };
}
