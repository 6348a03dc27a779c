import { Router } from 'express';
import { requireScope } from '@bedrequest/tokens';

/**
 * The scopes of the FHIR reads behind one guard (docs/parties.md, "System clients and scopes"): a
 * search needs SMART v2's `s`, a read by id `r`. Mounted at `/api/v2/fhir` after the token guard;
 * other paths pass on untouched.
 */
export function fhirReadScopes(): Router {
  const router = Router();
  router.get('/Task', requireScope('Task.s'));
  router.get('/Task/:id', requireScope('Task.r'));
  router.get('/AuditEvent', requireScope('AuditEvent.s'));
  return router;
}
