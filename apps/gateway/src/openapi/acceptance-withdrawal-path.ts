// The selected clinic's withdrawal of its acceptance (docs/decisions.md, "Clinics answer"), beside the answer of clinic-api-paths.ts.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ClinicAnswerQueued, FhirTask, IF_MATCH_MAX_TAGS, TASK_TAG_MAX_LENGTH } from '@bedrequest/contracts';
import { REQUEST_BOUNDS } from '@bedrequest/fhir-model';
import { AcceptanceWithdrawal, MAX_NOTE_CHARACTERS, TaskId } from '../clinic-api/clinic-api.router';
import { fhir, guarded, header, json, merged, refusals, UNDECODABLE_PATH, type Secured } from './responses';

/** RFC 9110 §13.1.1, compared weakly, as for the answer (docs/api.md, "Clinic API"). */
const IfMatchHeader = z
  .string()
  .optional()
  .describe('`*`, or the `ETag` of the Task as read (a comma-separated list of entity tags: one of them must be current)');

/** `POST /api/v1/clinic/tasks/{taskId}/withdraw-acceptance` (clinic tokens only). */
export function registerAcceptanceWithdrawalPath(registry: OpenAPIRegistry, secured: Secured): void {
  const base = guarded('clinic');
  const task = { params: z.object({ taskId: TaskId.describe('The Task id') }) };
  const notThisClinics = { 404: 'Not a Task of this clinic (or not a Task id)' };
  registry.registerPath({
    method: 'post',
    path: '/api/v1/clinic/tasks/{taskId}/withdraw-acceptance',
    operationId: 'withdrawAcceptance',
    summary:
      "The selected clinic withdraws its acceptance, with a reason: the selection is lifted and the referrer gets one AdmissionResponse event (webhook 'AdmissionResponse')",
    security: secured,
    description:
      "Only the selected clinic's Task, while the request is an order (Task.status `in-progress`). The request is a proposal again, as after the referrer's withdrawal of the selection (the other clinics' Tasks stay cancelled until a later bundle names them again); the Task becomes `rejected` with businessStatus `declined` and the reason as its note, and the bed the selection reserved is given back. An answer (`…/answer`) of the selected clinic is recorded but lifts no selection. `If-Match` as for the answer.",
    request: { ...task, headers: z.object({ 'if-match': IfMatchHeader }), body: { required: true, content: json(AcceptanceWithdrawal) } },
    responses: {
      200: { description: 'The Task, rejected with the reason as its note', headers: { ETag: header('ETag') }, content: fhir(FhirTask) },
      202: { description: 'Intake did not confirm in time: the withdrawal is queued', content: json(ClinicAnswerQueued) },
      ...refusals(
        'v1',
        merged(base, UNDECODABLE_PATH, {
          400: `The body is empty or not JSON, no reason, a blank one or one over ${MAX_NOTE_CHARACTERS} characters (any body over 32 KiB counts as one), or an unknown field; an If-Match that is not * or a list of entity tags (at most ${IF_MATCH_MAX_TAGS}, each at most ${TASK_TAG_MAX_LENGTH} characters)`,
          ...notThisClinics,
          409: `The clinic is not the selected one (no selection, or it was lifted already), the Task is cancelled, the request revoked, or its patient data erased; or the Task holds its ${REQUEST_BOUNDS.notesPerTask} notes already`,
          412: "If-Match names none of the Task's current tag: nothing was stored. ETag is the current tag",
          415: 'Not `application/json`, or a charset or Content-Encoding the gateway does not read',
          503: 'the withdrawal could not be stored (broker unavailable)',
        }),
      ),
    },
  });
}
