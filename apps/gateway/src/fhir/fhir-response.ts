import type { Response } from 'express';
import type { OperationOutcome } from '@medplum/fhirtypes';
import { getStatus } from '@bedrequest/fhir-model';

export const FHIR_JSON = 'application/fhir+json';

export function sendFhir(res: Response, status: number, body: unknown): void {
  res.status(status).type(FHIR_JSON).send(JSON.stringify(body));
}

/** An error on a FHIR path: the OperationOutcome with the status its first issue maps to. */
export function sendOutcome(res: Response, result: OperationOutcome, status = getStatus(result)): void {
  sendFhir(res, status, result);
}
