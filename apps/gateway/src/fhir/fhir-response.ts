import type { Response } from 'express';
import type { OperationOutcome } from '@medplum/fhirtypes';

export const FHIR_JSON = 'application/fhir+json';

export function sendFhir(res: Response, status: number, body: unknown): void {
  res.status(status).type(FHIR_JSON).send(JSON.stringify(body));
}

/** An error on a FHIR path: the OperationOutcome with its status (an HttpError's, or a refused search's 400 or 406). */
export function sendOutcome(res: Response, result: OperationOutcome, status: number): void {
  sendFhir(res, status, result);
}
