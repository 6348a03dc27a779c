// The hospital's own data beside its requests: case numbers and drafts, never sent to a clinic.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  CaseNumberInput,
  CaseNumberList,
  CaseNumberSearch,
  CaseNumberView,
  DraftInput,
  DraftList,
  DraftView,
  MAX_DRAFT_CONTENT_BYTES,
  MAX_REFERRER_DRAFTS,
  ReferrerSettings,
} from '@bedrequest/contracts';
import { DraftId } from '../referrer-api/referrer-workspace.router';
import { guarded, header, json, jsonBodyRefusals, merged, refusals, UNDECODABLE_PATH, type Refusals, type Secured } from './responses';

const NEVER_SENT =
  'Kept by the service for the caller\'s party only and never sent to a clinic: not in a Task, bundle, event or webhook (docs/api.md, "The hospital\'s own data: case numbers and drafts").';

export function registerReferrerWorkspacePaths(registry: OpenAPIRegistry, secured: Secured): void {
  const base = merged(guarded('referrer'), { 503: "the hospital's data store is unavailable" });
  const body = (described: string) => merged(jsonBodyRefusals('512 KiB'), { 400: described });
  const noStore = { 'Cache-Control': header('NoStore') };
  const answer = (description: string, schema: z.ZodType) => ({ description, headers: noStore, content: json(schema) });
  const draft = { params: z.object({ id: DraftId.describe('The draft id') }) };
  const noSuchDraft: Refusals = { 404: "No draft of the caller's party with this id (also an id that is not a UUID)" };
  const draftBody = `\`content\` missing, not an object or over ${MAX_DRAFT_CONTENT_BYTES / 1024} KiB as JSON; \`label\` over 200 characters; another field`;

  registry.registerPath({
    method: 'put',
    path: '/api/v1/referrer/case-numbers',
    operationId: 'setCaseNumber',
    summary: 'Sets the hospital\'s case number ("Fallnummer") of a request, or removes it with `null`; also before the service stored the request',
    description: `Keyed by the request's identifier: a bundle answered 202 is stored shortly after, and its case number may be set at once. Stored sealed; found by a keyed digest. ${NEVER_SENT}`,
    security: secured,
    request: { body: { required: true, content: json(CaseNumberInput) } },
    responses: {
      200: answer('The case number as stored (`caseNumber: null` once removed)', CaseNumberView),
      ...refusals(
        'v1',
        merged(
          base,
          body(
            'identifier missing or not a URI of 1–1024 characters; caseNumber missing, empty, over 64 characters or with other characters than letters, digits, space and `. - / _ :`',
          ),
          { 410: "The request's patient data was erased: it takes no case number" },
        ),
      ),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/referrer/case-numbers/_search',
    operationId: 'searchCaseNumbers',
    summary: "The party's case numbers: of one case number (exact after trimming, ignoring case) or of up to 500 request identifiers",
    description: `A POST, so that a case number, which names a patient's stay, never stands in a URL or an access log. ${NEVER_SENT}`,
    security: secured,
    request: { body: { required: true, content: json(CaseNumberSearch) } },
    responses: {
      200: answer("The case numbers found, by identifier: those of the caller's party only", CaseNumberList),
      ...refusals('v1', merged(base, body('Not exactly one of `caseNumber` and `identifiers` (1–500), or either malformed'))),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/referrer/drafts',
    operationId: 'listDrafts',
    summary: "The party's drafts of new requests, saved last first, without their content",
    description: NEVER_SENT,
    security: secured,
    responses: { 200: answer('The drafts', DraftList), ...refusals('v1', base) },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/referrer/drafts',
    operationId: 'createDraft',
    summary: `Saves a new draft: any JSON object the client owns, at most ${MAX_DRAFT_CONTENT_BYTES / 1024} KiB, and a label`,
    description: `At most ${MAX_REFERRER_DRAFTS} per party; sealed at rest; deleted REFERRER_DRAFT_RETENTION_DAYS (30) after its last save. ${NEVER_SENT}`,
    security: secured,
    request: { body: { required: true, content: json(DraftInput) } },
    responses: {
      201: answer('The draft as saved', DraftView),
      ...refusals('v1', merged(base, body(draftBody), { 409: `The party keeps ${MAX_REFERRER_DRAFTS} drafts already: delete one first` })),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/referrer/drafts/{id}',
    operationId: 'readDraft',
    summary: 'One draft with its content',
    security: secured,
    request: draft,
    responses: { 200: answer('The draft', DraftView), ...refusals('v1', merged(base, UNDECODABLE_PATH, noSuchDraft)) },
  });
  registry.registerPath({
    method: 'put',
    path: '/api/v1/referrer/drafts/{id}',
    operationId: 'updateDraft',
    summary: 'Replaces a draft (label and content), as saved now by the caller',
    security: secured,
    request: { ...draft, body: { required: true, content: json(DraftInput) } },
    responses: { 200: answer('The draft as saved', DraftView), ...refusals('v1', merged(base, UNDECODABLE_PATH, body(draftBody), noSuchDraft)) },
  });
  registry.registerPath({
    method: 'delete',
    path: '/api/v1/referrer/drafts/{id}',
    operationId: 'deleteDraft',
    summary: 'Deletes a draft',
    security: secured,
    request: draft,
    responses: { 204: { description: 'Deleted', headers: noStore }, ...refusals('v1', merged(base, UNDECODABLE_PATH, noSuchDraft)) },
  });
  const settingsDescription =
    'The default answer deadline of a new request whose ServiceRequest names none: `workingDays` working days after the service received it, at the same clock time in Europe/Berlin; Saturdays, Sundays and the public holidays of `holidays` (`DE`: the nationwide ones; `DE-BW` …: those of a German state) are no working days, 24 and 31 December are working days. Without a setting of its own a party has the service default (ANSWER_DEADLINE_WORKING_DAYS, default 2; ANSWER_DEADLINE_HOLIDAYS, default `DE`). `escalation`, the party\'s rule for asking further clinics after a request\'s deadline: when fewer than `whenOpenBelow` of its clinics are still open (not declined, cancelled or overdue), the next `askNext` participating clinics with the request\'s department are asked, first from `clinics` in order, then from the registry nearest to `origin` (a point the rule gives: the service has no geocoding). Absent from GET when none is set; absent on PUT the stored rule stays, `null` removes it. docs/api.md, "Answer deadlines" and "Asking by rule".';
  registry.registerPath({
    method: 'get',
    path: '/api/v1/referrer/settings',
    operationId: 'readReferrerSettings',
    summary: "The party's settings: its default answer deadline",
    description: settingsDescription,
    security: secured,
    responses: { 200: answer("The party's settings, or the service's default", ReferrerSettings), ...refusals('v1', base) },
  });
  registry.registerPath({
    method: 'put',
    path: '/api/v1/referrer/settings',
    operationId: 'updateReferrerSettings',
    summary: "Sets the party's default answer deadline (requests already received keep theirs) and its rule for asking further clinics",
    description: settingsDescription,
    security: secured,
    request: { body: { required: true, content: json(ReferrerSettings) } },
    responses: {
      200: answer('The settings as stored', ReferrerSettings),
      ...refusals(
        'v1',
        merged(
          base,
          body(
            '`answerDeadline.workingDays` not a whole number from 1 to 10, `holidays` not `DE` or `DE-` and a state code, `escalation.whenOpenBelow` or `askNext` not from 1 to 10, more than 50 `clinics` or one twice or not 9 digits, `origin.postalCode` not 5 digits, `latitude`/`longitude` out of range, another field',
          ),
        ),
      ),
    },
  });
}
