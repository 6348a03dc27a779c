import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

export interface CapturedLogger {
  logger: Logger;
  /** Every line logged so far, as raw JSON text. */
  text(): string;
}

/** A logger that keeps its output in memory, to assert on what a flow logged (and did not). */
export function captureLogger(level = 'trace'): CapturedLogger {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString('utf8'));
      callback();
    },
  });
  return { logger: pino({ level }, stream), text: () => lines.join('') };
}
