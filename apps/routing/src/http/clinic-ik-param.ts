import type { Request } from 'express';

/** The `:ik` of a router mounted at `/internal/clinics/:ik/...` with `mergeParams`. */
export function clinicIkOf(req: Request): string {
  return String((req.params as Record<string, string | undefined>).ik);
}
