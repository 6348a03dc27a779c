import { randomUUID } from 'node:crypto';

export const CORRELATION_HEADER = 'x-correlation-id';

/** Takes the caller's correlation id when it is a sane token, otherwise makes a new one. */
export function correlationIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && /^[A-Za-z0-9._:-]{1,128}$/.test(value) ? value : randomUUID();
}
