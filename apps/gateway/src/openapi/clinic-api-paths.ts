// The /api/v1/clinic paths: the clinic's Tasks, their bundles and documents, the answer, and the bed counts.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  AdmissionRequestBundle,
  AutoAnswerRequest,
  AutoAnswerSetting,
  BedCountList,
  BedCountView,
  CLINIC_PAGE,
  ClinicAnswerQueued,
  ClinicDocumentList,
  ClinicTaskList,
  DocumentBundle,
  FhirTask,
  FreeBedsVisibility,
  FreeBedsVisibilityRequest,
  IF_MATCH_MAX_TAGS,
  ReferrerContact,
  RequestVersionList,
  TASK_TAG_MAX_LENGTH,
  TaskHistory,
} from '@bedrequest/contracts';
import { REQUEST_BOUNDS } from '@bedrequest/fhir-model';
import { BedCount, DateQuery } from '../capacity/capacity.router';
import { ClinicAnswer, MAX_NOTE_CHARACTERS, TaskId } from '../clinic-api/clinic-api.router';
import { ClinicDocumentPageQuery, DocumentPosition, RequestVersionPageQuery, TaskHistoryPageQuery } from '../clinic-api/clinic-pages';
import { ClinicTaskListQuery } from '../clinic-api/clinic-tasks.router';
import { registerClinicWorkspacePaths } from './clinic-workspace-paths';
import { fhir, guarded, header, json, jsonBodyRefusals, merged, refusals, UNDECODABLE_PATH, type Refusals, type Secured } from './responses';

/** RFC 9110 §13.1.1, compared weakly (docs/api.md, "Clinic API"). */
const IfMatchHeader = z
  .string()
  .optional()
  .describe('`*`, or the `ETag` of the Task as read (a comma-separated list of entity tags: one of them must be current)');

/** The clinic API (clinic tokens only): the Task's bundle and documents, the answer, the bed counts. */
export function registerClinicApiPaths(registry: OpenAPIRegistry, secured: Secured): void {
  const base = guarded('clinic');
  const task = { params: z.object({ taskId: TaskId.describe('The Task id') }) };
  const notThisClinics: Refusals = { 404: 'Not a Task of this clinic (or not a Task id)' };
  const erased: Refusals = {
    410: "The request's patient data was erased (data protection): the message says when; the Task remains, read and searched as its tombstone",
  };
  const taskStore: Refusals = { 503: 'the Task store is unavailable' };
  const badParameter: Refusals = { 400: 'An unknown parameter or a malformed value (the message names it)' };
  const paged = (items: string) =>
    `A page of at most \`_count\` ${items} from \`_offset\`, with \`total\`, and \`next\` while more follow. Whatever the request holds, a page never carries more than ${CLINIC_PAGE.maxBytes / (1024 * 1024)} MiB of bundles: it stops before the one that would take it over (and always holds one), so it may hold fewer than \`_count\`; go on with \`next\`.`;

  // Who works on a Task, internal notes, what was seen: clinic-workspace-paths.ts.
  registerClinicWorkspacePaths(registry, secured);
  const noStore = { 'Cache-Control': header('NoStore') };
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/tasks',
    operationId: 'listClinicTasks',
    summary:
      "The clinic's Tasks at a glance (no master data): open ones first, then the most recently changed, or sorted by desired admission date, arrival or state (`_sort`), searched by request number, referrer or diagnosis (`q`), with the count of each list state",
    security: secured,
    request: { query: ClinicTaskListQuery },
    responses: {
      200: { description: 'A page of summaries', headers: noStore, content: json(ClinicTaskList) },
      ...refusals('v1', merged(base, badParameter, taskStore)),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/tasks/{taskId}/versions',
    operationId: 'listClinicTaskVersions',
    summary: 'The AdmissionRequestBundle versions this clinic was sent for the Task, a page at a time, oldest first (or newest first)',
    description: paged('versions'),
    security: secured,
    request: { ...task, query: RequestVersionPageQuery },
    responses: {
      200: { description: 'A page of the versions as received', headers: noStore, content: json(RequestVersionList) },
      ...refusals('v1', merged(base, UNDECODABLE_PATH, badParameter, notThisClinics, erased, taskStore)),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/tasks/{taskId}/history',
    operationId: 'readClinicTaskHistory',
    summary:
      "The Task's history for its clinic, newest first: each answer with its note and who gave it, each delivery of documents, each change of the request",
    description:
      'A page of at most `_count` entries from `_offset`, with `total`, and `next` while more follow. The newest 300 entries are kept; a note stored before answers were kept (by release 1.0) is an entry `note` of its own, without the answer it came with.',
    security: secured,
    request: { ...task, query: TaskHistoryPageQuery },
    responses: {
      200: { description: 'A page of the history', headers: noStore, content: json(TaskHistory) },
      ...refusals('v1', merged(base, UNDECODABLE_PATH, badParameter, notThisClinics, erased, taskStore)),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/tasks/{taskId}/referrer',
    operationId: 'readClinicTaskReferrer',
    summary: "Whom to call about the Task's request: the referrer party's name, contact person or desk, telephone and e-mail",
    description:
      'As the operator registered them for the party that sent the request (`party create|update --contact-name --contact-phone --contact-email`), read when asked: a change shows at once. The contact fields are absent where none is registered. Not patient data: answered after an erasure too.',
    security: secured,
    request: task,
    responses: {
      200: { description: "The referrer's contact", headers: noStore, content: json(ReferrerContact) },
      ...refusals('v1', merged(base, UNDECODABLE_PATH, notThisClinics, { 503: 'the Task store or the parties are unavailable' })),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/tasks/{taskId}/bundle',
    operationId: 'readClinicTaskBundle',
    summary: 'The latest AdmissionRequestBundle version this clinic was sent, as received (only the selected clinic ever receives full master data)',
    security: secured,
    request: task,
    responses: {
      200: { description: 'The bundle', headers: noStore, content: fhir(AdmissionRequestBundle) },
      ...refusals('v1', merged(base, UNDECODABLE_PATH, notThisClinics, erased, taskStore)),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/tasks/{taskId}/documents',
    operationId: 'listClinicTaskDocuments',
    summary: 'The DocumentBundles sent for the request of the Task, a page at a time, oldest first',
    description: paged('DocumentBundles'),
    security: secured,
    request: { ...task, query: ClinicDocumentPageQuery },
    responses: {
      200: { description: 'A page of the documents', headers: noStore, content: json(ClinicDocumentList) },
      ...refusals('v1', merged(base, UNDECODABLE_PATH, badParameter, notThisClinics, erased, taskStore)),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/tasks/{taskId}/documents/{n}',
    operationId: 'readClinicTaskDocument',
    summary: 'One DocumentBundle of the request of the Task, by its position in the pages of documents (from 0), read without the others',
    security: secured,
    request: { params: z.object({ taskId: TaskId.describe('The Task id'), n: DocumentPosition }) },
    responses: {
      200: { description: 'The DocumentBundle', headers: noStore, content: fhir(DocumentBundle) },
      ...refusals(
        'v1',
        merged(base, UNDECODABLE_PATH, notThisClinics, { 404: 'No document at this position (past the last, or not a whole number)' }, erased, taskStore),
      ),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/clinic/tasks/{taskId}/answer',
    operationId: 'answerClinicTask',
    summary: "Answer a Task; the referrer gets one AdmissionResponse event (webhook 'AdmissionResponse')",
    security: secured,
    description:
      'With `If-Match` (the `ETag` of the Task as read), the answer is taken only while the Task still has that tag: no colleague answered and no new request version came meanwhile; else 412. Without it, the answer is taken on whatever the Task is now.',
    request: { ...task, headers: z.object({ 'if-match': IfMatchHeader }), body: { required: true, content: json(ClinicAnswer) } },
    responses: {
      200: { description: 'The Task with the answer', headers: { ETag: header('ETag') }, content: fhir(FhirTask) },
      202: { description: 'Intake did not confirm in time: the answer is queued', content: json(ClinicAnswerQueued) },
      ...refusals(
        'v1',
        merged(base, UNDECODABLE_PATH, {
          400: `The body is empty or not JSON, an unknown businessStatus, a note over ${MAX_NOTE_CHARACTERS} characters (any body over 32 KiB counts as one), or an unknown field; an If-Match that is not * or a list of entity tags (at most ${IF_MATCH_MAX_TAGS}, each at most ${TASK_TAG_MAX_LENGTH} characters)`,
          ...notThisClinics,
          409: `The Task is cancelled, the request revoked, or its patient data erased; or a note when the Task holds its ${REQUEST_BOUNDS.notesPerTask} notes already (too-long: answer without one)`,
          412: "If-Match names none of the Task's current tag: a colleague answered or the referrer sent a new version since it was read; nothing was stored. ETag is the current tag: read the Task again and answer on what it is now",
          415: 'Not `application/json`, or a charset or Content-Encoding the gateway does not read',
          503: 'the answer could not be stored (broker unavailable)',
        }),
      ),
    },
  });

  const routing: Refusals = { 404: 'The clinic is not a participating clinic', 503: 'the bed counts are unavailable' };
  registry.registerPath({
    method: 'put',
    path: '/api/v1/clinic/capacity',
    operationId: 'setBedCount',
    summary: 'Publish the free beds of the calling clinic for one of its departments and an admission date (used by automatic answers)',
    security: secured,
    request: { body: { required: true, content: json(BedCount) } },
    responses: {
      200: { description: 'The stored count with the beds held and reserved', content: json(BedCountView) },
      ...refusals(
        'v1',
        merged(
          base,
          jsonBodyRefusals('16 KiB'),
          {
            400: 'a field is missing, malformed or unknown, not a calendar date, a date before today (Europe/Berlin), or a department the clinic does not offer',
          },
          routing,
        ),
      ),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/capacity',
    operationId: 'listBedCounts',
    summary: 'The bed counts of the calling clinic, by date',
    security: secured,
    request: { query: z.object({ from: DateQuery.describe('First admission date, YYYY-MM-DD'), to: DateQuery.describe('Last admission date, YYYY-MM-DD') }) },
    responses: {
      200: { description: 'The counts with the beds held (accepted, not yet selected) and reserved (selected)', content: json(BedCountList) },
      ...refusals('v1', merged(base, { 400: 'from or to is not a date YYYY-MM-DD' }, routing)),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/capacity/auto-answer',
    operationId: 'readAutoAnswer',
    summary: 'Whether the service answers requests for the calling clinic from its bed counts',
    security: secured,
    responses: { 200: { description: 'The setting', content: json(AutoAnswerSetting) }, ...refusals('v1', merged(base, routing)) },
  });
  registry.registerPath({
    method: 'put',
    path: '/api/v1/clinic/capacity/auto-answer',
    operationId: 'setAutoAnswer',
    summary: 'Switch the automatic answers from the bed counts on or off (accepted while a bed is free for the department and date, declined when none is)',
    security: secured,
    request: { body: { required: true, content: json(AutoAnswerRequest) } },
    responses: {
      200: { description: 'The new setting', content: json(AutoAnswerSetting) },
      ...refusals('v1', merged(base, jsonBodyRefusals('1 KiB'), { 400: 'not exactly {"enabled": true|false}' }, routing)),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/capacity/visibility',
    operationId: 'readFreeBedsVisibility',
    summary: 'Whether referrers read the free beds the calling clinic published (GET /api/v1/kliniken/free-beds); off until switched on',
    security: secured,
    responses: { 200: { description: 'The setting', content: json(FreeBedsVisibility) }, ...refusals('v1', merged(base, routing)) },
  });
  registry.registerPath({
    method: 'put',
    path: '/api/v1/clinic/capacity/visibility',
    operationId: 'setFreeBedsVisibility',
    summary: "Show the calling clinic's published free beds to referrers, or hide them again",
    security: secured,
    request: { body: { required: true, content: json(FreeBedsVisibilityRequest) } },
    responses: {
      200: { description: 'The new setting', content: json(FreeBedsVisibility) },
      ...refusals('v1', merged(base, jsonBodyRefusals('1 KiB'), { 400: 'not exactly {"shownToReferrers": true|false}' }, routing)),
    },
  });
}
