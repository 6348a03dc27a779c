import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs, one line per event. Request and message bodies are never logged (they carry patient
 * data); the redaction below is a second line of defence for credentials that reach a log call.
 */
export function createLogger(service: string, level: string): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'password',
        '*.password',
        'refreshToken',
        '*.refreshToken',
        'accessToken',
        '*.accessToken',
        'secret',
        '*.secret',
      ],
      censor: '[redacted]',
    },
  });
}
