/** The JSON text of `{ issues }` (the validator's OperationOutcome issues) or `{ failure }` (fhir-definitions.cjs). */
export function validationIssuesJson(resource: object): string;
