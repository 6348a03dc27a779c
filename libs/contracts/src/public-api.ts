import { z } from 'zod';
import { HeartbeatSeconds, PayloadForm } from './subscription-options';
import { BusinessStatus, TaskStatus } from './codes';
import { DispatchAction } from './messages/request-dispatched';

/**
 * Bodies of the public /api/v1 endpoints that more than one app reads: declared once, for the
 * service that checks or answers them, the gateway that passes them on and describes them in its
 * OpenAPI document, and the clinic inbox that calls them. Requests are strict objects (an unknown
 * field is 400, docs/decisions.md, "Errors"); read them with `HttpError.parseInput`, which names each
 * refused field, so the messages here say what is wrong without the field's name.
 */

/** `POST /api/v1/token/login` (spec, "Authentication"). */
export const LoginRequest = z.strictObject({ username: z.string().min(1).max(256), password: z.string().min(1).max(1024) });
export type LoginRequest = z.infer<typeof LoginRequest>;

/**
 * `POST /api/v1/token/refresh`. Any string is a refresh token to look up: one that is not live,
 * however it looks, is 401 like an expired one; only a body without a `refreshToken` string is 400.
 */
export const RefreshRequest = z.strictObject({ refreshToken: z.string() });
export type RefreshRequest = z.infer<typeof RefreshRequest>;

/** Spec, "Token response (login and refresh)". */
export const TokenResponse = z.object({
  tokenType: z.literal('Bearer'),
  accessToken: z.string().describe('An EdDSA-signed JWT; send it as `Authorization: Bearer <accessToken>`'),
  expiresIn: z.number().int().positive().describe('Seconds the access token lives (3600)'),
  refreshToken: z.string().describe('Single use: a refresh answers a new pair; presenting a used one revokes the whole family'),
});
export type TokenResponse = z.infer<typeof TokenResponse>;

/** `GET /api/v1/token/status`: the reachability check, without authentication. */
export const TokenServiceStatus = z.object({ status: z.literal('ok'), time: z.iso.datetime() });
export type TokenServiceStatus = z.infer<typeof TokenServiceStatus>;

/**
 * The events a subscription can be for (spec, "Events"): a clinic's answer, and a clinic's Task past
 * its answer deadline unanswered (docs/webhooks.md). Each type is a subscription of its own, with its
 * own sequence numbers.
 */
export const SubscriptionEventType = z.enum(['AdmissionResponse', 'AdmissionOverdue']);
export type SubscriptionEventType = z.infer<typeof SubscriptionEventType>;

export const MAX_CALLBACK_URL_LENGTH = 2048;

/**
 * docs/decisions.md: an absolute http(s) URL, else 400; its text is kept as sent, trimmed. Whether it
 * must be https and its host public is the notifier's check afterwards (its configuration; DNS).
 */
export const CallbackUrl = z
  .string()
  .trim()
  .min(1)
  .max(MAX_CALLBACK_URL_LENGTH)
  .pipe(
    z
      .url({ protocol: z.regexes.httpProtocol, error: 'must be an absolute http or https URL', abort: true })
      // Credentials in a URL end up in logs and configuration dumps; receivers verify the signature instead.
      .refine((text) => {
        const url = new URL(text);
        return url.username === '' && url.password === '';
      }, 'must not contain credentials'),
  )
  .describe(
    `An absolute http or https URL without user or password, at most ${MAX_CALLBACK_URL_LENGTH} characters; in production it must be https (unless the deployment sets WEBHOOK_REQUIRE_HTTPS=false) and its host must resolve to public addresses only`,
  );

/** Options a POST or PUT may set; one left out keeps its setting (a new subscription: `full`, no heartbeats). */
const subscriptionOptions = { payload: PayloadForm.optional(), heartbeatSeconds: HeartbeatSeconds.optional() };

/** `POST /api/v1/subscriptions`: one subscription per event type and party (a second POST changes its address and the options given). */
export const SubscribeRequest = z.strictObject({ eventType: SubscriptionEventType, callbackUrl: CallbackUrl, ...subscriptionOptions });
export type SubscribeRequest = z.infer<typeof SubscribeRequest>;

/** `PUT /api/v1/subscriptions/{id}`: a new address and the options given (also re-enables a disabled subscription). */
export const ChangeAddressRequest = z.strictObject({ callbackUrl: CallbackUrl, ...subscriptionOptions });
export type ChangeAddressRequest = z.infer<typeof ChangeAddressRequest>;

/** The page size of the delivery log and of `events?since=` (`?limit=`); a client pages on with the last sequence. */
export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 1000;
export const PageLimit = z
  .string()
  .regex(/^\d{1,4}$/)
  .transform(Number)
  .pipe(z.number().min(1).max(MAX_PAGE_LIMIT))
  .describe(`How many items at most: a whole number from 1 to ${MAX_PAGE_LIMIT} (default ${DEFAULT_PAGE_LIMIT})`);

/** `?since=`: the last sequence number a receiver has seen (0: from the start). */
export const SequenceNumber = z
  .string()
  .regex(/^\d{1,9}$/)
  .transform(Number)
  .describe('The last sequence number seen: the events after it are listed, oldest first (default 0: from the first)');

/** `GET /api/v1/subscriptions/{id}/events` (gap recovery). */
export const WebhookEventQuery = z.object({ since: SequenceNumber.optional(), limit: PageLimit.optional() });

const profileOf = (name: string) => z.looseObject({ profile: z.array(z.string()).min(1).describe(`Claims {profile_base}/fhir/StructureDefinition/${name}`) });
const BundleEntry = z.looseObject({ fullUrl: z.string(), resource: z.looseObject({ resourceType: z.string() }) });

/**
 * What a referrer sends and a clinic reads back as it was received. Described by what a client
 * relies on and left open (`looseObject`): the full definitions are the profiles the service serves
 * at /api/v2/fhir/StructureDefinition, and the gateway's bundle intake checks against those.
 */
export const AdmissionRequestBundle = z
  .looseObject({ resourceType: z.literal('Bundle'), meta: profileOf('AdmissionRequestBundle'), type: z.literal('collection'), entry: z.array(BundleEntry) })
  .describe('An AdmissionRequestBundle (docs/decisions.md, "Requests"); its full definition: GET /api/v2/fhir/StructureDefinition/AdmissionRequestBundle');
export const DocumentBundle = z
  .looseObject({ resourceType: z.literal('Bundle'), meta: profileOf('DocumentBundle'), type: z.literal('document'), entry: z.array(BundleEntry) })
  .describe(
    'A DocumentBundle: a Composition, then DocumentReferences naming the request; its full definition: GET /api/v2/fhir/StructureDefinition/DocumentBundle',
  );
export type DocumentBundle = z.infer<typeof DocumentBundle>;

/**
 * The pages of a clinic's reads of a request's versions and documents (docs/api.md, "Clinic API"):
 * `_count` from 1 to `maxCount` (default `defaultCount`), and never more than `maxBytes` of stored
 * bundles in one answer, whatever the request holds. Intake cuts the pages; the gateway checks the
 * parameters and states the ceiling.
 */
export const CLINIC_PAGE = { defaultCount: 20, maxCount: 50, maxBytes: 16 * 1024 * 1024 } as const;

/**
 * What a page of a clinic's reads of a request carries besides its items (docs/api.md,
 * "Clinic API"): how many there are in all, and where the next page is while more follow.
 */
const pageShape = <Item extends z.ZodType>(items: z.ZodArray<Item>) => ({
  total: z.number().int().describe('How many there are in all; `items` is the page of them asked for'),
  items,
  next: z
    .string()
    .optional()
    .describe(
      "Only while more follow: the query of the next page, a relative reference to resolve against this page's URL (`?_count=20&_offset=20`); a page holds fewer than `_count` items when the next would take it over the size ceiling",
    ),
});

/** `GET /api/v1/clinic/tasks/{taskId}/documents?_count=&_offset=`: a page of the request's DocumentBundles. */
export const ClinicDocumentList = z.object(pageShape(z.array(DocumentBundle).describe("The page's DocumentBundles, oldest first")));
export type ClinicDocumentList = z.infer<typeof ClinicDocumentList>;

/** The 202 of `POST /api/v1/clinic/tasks/{taskId}/answer` when intake did not confirm the answer in time. */
export const ClinicAnswerQueued = z
  .object({ status: z.literal('queued'), message: z.string() })
  .describe('The answer is safely queued; the Task shows it shortly (a refusal found later is not reported back)');
export type ClinicAnswerQueued = z.infer<typeof ClinicAnswerQueued>;

/** The list states of `GET /api/v1/clinic/tasks` (the clinic inbox's tabs), each a set of Task statuses. */
export const TaskListState = z.enum(['new', 'answered', 'selected', 'cancelled']);
export type TaskListState = z.infer<typeof TaskListState>;

/**
 * The Task statuses of each list state (docs/decisions.md, "Tasks"): `new` waits for the clinic's answer
 * (a first request or a supplement), `answered` was answered and waits for the referrer, `selected`
 * is the clinic's admission, `cancelled` needs nothing more. Intake lists and counts by it; the
 * clinic inbox filters its live rows by it.
 */
export const TASK_STATUSES_OF_LIST_STATE = {
  new: ['requested'],
  answered: ['accepted', 'rejected', 'on-hold'],
  selected: ['in-progress'],
  cancelled: ['cancelled'],
} as const satisfies Record<TaskListState, readonly TaskStatus[]>;

/**
 * One row of a clinic's Task list: the Task's state and what a person needs to judge the request at
 * a glance, read from the request version the clinic was sent (never a later one, so a masked
 * patient stays masked for it). No name, address or other master data: age and gender only.
 */
export const ClinicTaskSummary = z.object({
  id: z.string(),
  status: TaskStatus,
  businessStatus: BusinessStatus.optional(),
  /** Present (true) while the Task's latest answer is the one the service gave automatically on the clinic's behalf (docs/decisions.md, "Clinics answer"). */
  answeredAutomatically: z.literal(true).optional(),
  /** When the request reached the clinic (the Task's creation). */
  authoredOn: z.string(),
  lastModified: z.string(),
  /** The request version the clinic was sent last (1 = the first request; higher after supplements). */
  version: z.number().int(),
  request: z.object({
    status: z.string(),
    intent: z.string(),
    orderDetail: z.string().optional(),
    serviceType: z.string().optional(),
    /** The desired admission date, YYYY-MM-DD. */
    occurrenceDate: z.string().optional(),
    /** Resolved from `performerType` like routing does (docs/decisions.md, "Requests"). */
    departmentCode: z.string().optional(),
    specialty: z.string().optional(),
    requesterIk: z.string(),
    requesterName: z.string().optional(),
  }),
  /** When the request's patient data was erased (docs/data-protection.md): the row is its tombstone (`patient.dataLevel` `erased`, no patient data). */
  erasedAt: z.string().optional(),
  /** `age`: whole years on the day of the answer. */
  patient: z.object({ dataLevel: z.enum(['masked', 'complete', 'erased']), gender: z.string().optional(), age: z.number().int().optional() }),
  /** The first ICD-10-GM coded Condition of the bundle. */
  mainDiagnosis: z.object({ code: z.string(), display: z.string().optional() }).optional(),
  /**
   * When the referrer's documents reopened the Task after the clinic answered `more-data-required`
   * (docs/decisions.md, "Requests"); absent again once the clinic answers.
   */
  documentsSuppliedAt: z.string().optional(),
  deadline: z
    .string()
    .optional()
    .describe("The request's answer deadline (an instant in UTC), the Task's restriction.period.end; absent for a request received before deadlines existed"),
  overdueSince: z
    .string()
    .optional()
    .describe("When the service marked the Task overdue: it waits for the clinic's answer past its deadline; absent otherwise"),
});
export type ClinicTaskSummary = z.infer<typeof ClinicTaskSummary>;

export const ClinicTaskList = z.object({
  /** The clinic's Tasks in the states asked for (all without `state`), `since` aside: `items` is a page of them. */
  total: z.number().int(),
  /** The clinic's Tasks per list state, whatever the query: the inbox's tab counts. */
  counts: z.record(TaskListState, z.number().int()),
  items: z.array(ClinicTaskSummary),
  next: z
    .string()
    .optional()
    .describe(
      "Only while more follow: the query of the next page, a relative reference to resolve against this page's URL (`?_count=100&_offset=100`; past `_offset=10000` it carries `_cursor`)",
    ),
});
export type ClinicTaskList = z.infer<typeof ClinicTaskList>;

/**
 * `GET /api/v1/clinic/tasks/{taskId}/versions?_count=&_offset=&_sort=`: a page of the request
 * versions a clinic was sent; `bundle` is the AdmissionRequestBundle as received.
 */
export const RequestVersionList = z.object(
  pageShape(
    z
      .array(z.object({ version: z.number().int(), receivedAt: z.string(), bundle: z.looseObject({ resourceType: z.literal('Bundle') }) }))
      .describe('The versions of the page: oldest first, or newest first with `_sort=-version`'),
  ),
);
export type RequestVersionList = z.infer<typeof RequestVersionList>;
export type RequestVersion = RequestVersionList['items'][number];

/** Who gave an answer or wrote a note: a person of the clinic by user id (with their display name then), or the clinic itself for an automatic answer. */
const HistoryAuthor = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('Practitioner'), user: z.string(), display: z.string().optional() }),
    z.object({ type: z.literal('Organization'), ik: z.string().describe("The clinic's IK: the service answered on its behalf") }),
  ])
  .describe('Who gave it, as the Task\'s note authorReference names them (docs/api.md, "Tasks")');

/**
 * One entry of a Task's history for its clinic (docs/api.md, "Clinic API"): an answer with its
 * note, a note kept from before answers were kept (no code), a delivery of documents, a change
 * of the request that reached the Task, or the service's overdue mark.
 */
export const TaskHistoryEntry = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('answer'), at: z.string(), businessStatus: BusinessStatus, note: z.string().optional(), author: HistoryAuthor }),
  z
    .object({ kind: z.literal('note'), at: z.string(), note: z.string(), author: HistoryAuthor.optional() })
    .describe('A note whose answer is not known (stored before answers were kept)'),
  z.object({
    kind: z.literal('documents'),
    at: z.string(),
    count: z.number().int().describe('How many documents (DocumentReference entries) the DocumentBundle carried'),
    kinds: z.array(z.string()).optional().describe("The documents' kinds: each DocumentReference's type, else its attachment's title"),
    reopened: z.boolean().describe('Whether they reopened the Task for an answer (the latest answer was `more-data-required`)'),
  }),
  z.object({
    kind: z.literal('request'),
    at: z.string(),
    action: DispatchAction.describe('`answer-requested` (a new or supplemented request, or a Task reopened), `selected` or `cancelled`'),
    status: TaskStatus.describe('The Task status it left'),
    version: z.number().int().optional().describe('The request version the clinic was sent with it'),
  }),
  z
    .object({
      kind: z.literal('overdue'),
      at: z.string().describe('When the service marked the Task overdue'),
      deadline: z.string().describe('The answer deadline that passed unanswered (`restriction.period.end` then)'),
    })
    .describe('The service marked the Task overdue (docs/api.md, "Answer deadlines")'),
]);
export type TaskHistoryEntry = z.infer<typeof TaskHistoryEntry>;

/** `GET /api/v1/clinic/tasks/{taskId}/history?_count=&_offset=`: a page of the Task's history, newest first. */
export const TaskHistory = z.object(pageShape(z.array(TaskHistoryEntry).describe('The entries of the page, newest first')));
export type TaskHistory = z.infer<typeof TaskHistory>;
