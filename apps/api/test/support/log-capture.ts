import { Writable } from 'node:stream';

export interface LogLine {
  level: number;
  msg?: string;
  [field: string]: unknown;
}

/** pino's numbers for the levels an operator watches. */
export const LOG_LEVEL = { info: 30, warn: 40, error: 50 } as const;

/**
 * The server's log as an operator's pipeline receives it (JSON lines), for a test to read:
 * pass `logger` to buildTestApp / startTestServer.
 */
export function captureLog(level = 'info') {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        lines.push(JSON.parse(line) as LogLine);
      }
      done();
    },
  });
  return {
    logger: { level, stream },
    lines,
    /** The lines of one level whose message matches. */
    find(levelNumber: number, message: RegExp): LogLine[] {
      return lines.filter((line) => line.level === levelNumber && message.test(line.msg ?? ''));
    },
  };
}
