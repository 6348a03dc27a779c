import { BusinessStatus, TaskStatus } from '@bedrequest/contracts';
import { TASK_RESULT_PARAMETERS, TASK_SEARCH_PARAMETERS } from '@bedrequest/fhir-model';
import { SCOPE_CATALOGUE, type CatalogueScope } from '@bedrequest/tokens';
import { FHIR_CONTENT_TYPES } from '../fhir/fhir-body';
import { openApiDocument } from './openapi-document';

interface JsonSchema {
  $ref?: string;
  type?: string;
  enum?: string[];
  required?: string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: unknown;
  items?: JsonSchema;
}
interface Answer {
  $ref?: string;
  description?: string;
  headers?: Record<string, { $ref?: string }>;
  content?: Record<string, { schema: JsonSchema }>;
}
interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, Answer>;
}
type PathItem = Partial<Record<'get' | 'head' | 'post' | 'put' | 'delete' | 'options', Operation>>;

describe('OpenAPI document', () => {
  const document = openApiDocument({ serverUrl: 'http://127.0.0.1:8080' });
  const paths = document.paths as Record<string, PathItem>;
  const schemas = document.components?.schemas as Record<string, JsonSchema>;
  const operations = Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation: operation as Operation })),
  );
  const bodyOf = (answer: Answer | undefined, mediaType = 'application/json') => answer?.content?.[mediaType]?.schema;

  it('describes every public endpoint of the gateway', () => {
    expect(Object.keys(paths).sort()).toEqual(
      [
        '/',
        '/api/openapi.json',
        '/api/v1/clinic/answer-statistics',
        '/api/v1/clinic/capacity',
        '/api/v1/clinic/capacity/auto-answer',
        '/api/v1/clinic/capacity/visibility',
        '/api/v1/clinic/tasks',
        '/api/v1/clinic/tasks/{taskId}/answer',
        '/api/v1/clinic/tasks/{taskId}/assignee',
        '/api/v1/clinic/tasks/{taskId}/bundle',
        '/api/v1/clinic/tasks/{taskId}/documents',
        '/api/v1/clinic/tasks/{taskId}/documents/{n}',
        '/api/v1/clinic/tasks/{taskId}/history',
        '/api/v1/clinic/tasks/{taskId}/internal-notes',
        '/api/v1/clinic/tasks/{taskId}/referrer',
        '/api/v1/clinic/tasks/{taskId}/seen',
        '/api/v1/clinic/tasks/{taskId}/versions',
        '/api/v1/clinic/tasks/{taskId}/withdraw-acceptance',
        '/api/v1/clinic/tasks/{taskId}/workspace',
        '/api/v1/clinic/workspace',
        '/api/v1/kliniken',
        '/api/v1/kliniken/answer-statistics',
        '/api/v1/kliniken/free-beds',
        '/api/v1/party',
        '/api/v1/party/users',
        '/api/v1/party/users/me/notifications',
        '/api/v1/party/users/{id}/disable',
        '/api/v1/records/jwks',
        '/api/v1/records/verify',
        '/api/v1/referrer/case-numbers',
        '/api/v1/referrer/case-numbers/_search',
        '/api/v1/referrer/drafts',
        '/api/v1/referrer/drafts/{id}',
        '/api/v1/referrer/ready-for-transfer',
        '/api/v1/referrer/ready-for-transfer/_read',
        '/api/v1/referrer/records/{taskId}',
        '/api/v1/referrer/settings',
        '/api/v1/subscriptions',
        '/api/v1/subscriptions/{id}',
        '/api/v1/subscriptions/{id}/deliveries',
        '/api/v1/subscriptions/{id}/deliveries/{eventId}/retry',
        '/api/v1/subscriptions/{id}/events',
        '/api/v1/subscriptions/{id}/rotate-secret',
        '/api/v1/token/login',
        '/api/v1/token/oauth2',
        '/api/v1/token/refresh',
        '/api/v1/token/revoke',
        '/api/v1/token/status',
        '/api/v2/fhir/.well-known/smart-configuration',
        '/api/v2/fhir/AuditEvent',
        '/api/v2/fhir/Bundle',
        '/api/v2/fhir/CodeSystem',
        '/api/v2/fhir/CodeSystem/{id}',
        '/api/v2/fhir/ServiceRequest',
        '/api/v2/fhir/StructureDefinition',
        '/api/v2/fhir/StructureDefinition/{id}',
        '/api/v2/fhir/Task',
        '/api/v2/fhir/Task/{id}',
        '/api/v2/fhir/metadata',
      ].sort(),
    );
  });

  it('is the same document however often it is made (naming the shapes changes nothing the second time)', () => {
    expect(openApiDocument({ serverUrl: 'http://127.0.0.1:8080' })).toEqual(document);
  });

  it('names every operation, the webhooks included, with an operationId of its own in camelCase', () => {
    const webhooks = Object.entries(document.webhooks as Record<string, PathItem>).flatMap(([name, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path: `webhook ${name}`, method, operation: operation as Operation })),
    );
    const named = [...operations, ...webhooks].map(({ path, method, operation }) => ({
      operation: `${method.toUpperCase()} ${path}`,
      id: operation.operationId,
    }));
    expect(named.filter(({ id }) => !id || !/^[a-z][a-zA-Z0-9]*$/.test(id))).toEqual([]);
    const seen = new Map<string, string>();
    const twice = named.flatMap(({ operation, id = '' }) => {
      const first = seen.get(id);
      seen.set(id, operation);
      return first ? [`${id}: ${first} and ${operation}`] : [];
    });
    expect(twice).toEqual([]);
    // The names integrators' generated clients call.
    expect(paths['/api/v2/fhir/Task']?.get?.operationId).toBe('searchTask');
    expect(paths['/api/v2/fhir/Task']?.head?.operationId).toBe('headSearchTask');
    expect(paths['/api/v2/fhir/Task/{id}']?.options?.operationId).toBe('optionsFhirTaskById');
  });

  it('declares `security: []` on exactly the operations served without a token, and a person or a scoped system client on the rest', () => {
    const open = operations
      .filter(({ method, operation }) => method !== 'options' && method !== 'head' && operation.security?.length === 0)
      .map(({ path, method }) => `${method.toUpperCase()} ${path}`);
    expect(open.sort()).toEqual(
      [
        'GET /',
        'GET /api/openapi.json',
        'POST /api/v1/token/login',
        'POST /api/v1/token/refresh',
        'POST /api/v1/token/revoke',
        'GET /api/v1/token/status',
        'POST /api/v1/token/oauth2',
        'POST /api/v1/records/verify',
        'GET /api/v1/records/jwks',
        'GET /api/v2/fhir/.well-known/smart-configuration',
        'GET /api/v2/fhir/metadata',
        'GET /api/v2/fhir/StructureDefinition',
        'GET /api/v2/fhir/StructureDefinition/{id}',
        'GET /api/v2/fhir/CodeSystem',
        'GET /api/v2/fhir/CodeSystem/{id}',
      ].sort(),
    );
    for (const { path, method, operation } of operations.filter(({ operation }) => operation.security?.length !== 0)) {
      expect({ path, method, security: operation.security }).toEqual({ path, method, security: [{ bearer: [] }, { systemClient: [expect.any(String)] }] });
      // The catalogue says what each scope grants: `GET /api/v2/fhir/Task and Task/{id}`, `/api/v1/party: …`.
      const scope = operation.security?.[1]?.['systemClient']?.[0] as CatalogueScope;
      const [, grantedMethod, grantedPath = '-'] = /^(?:([A-Z]+) )?(\/[^\s:]+)/.exec(SCOPE_CATALOGUE[scope]?.grants ?? '') ?? [];
      const asked = method === 'head' ? 'GET' : method.toUpperCase();
      expect({ path, method, scope, grants: path.startsWith(grantedPath) && (!grantedMethod || grantedMethod === asked) }).toEqual({
        path,
        method,
        scope,
        grants: true,
      });
    }
    const scopes = (document.components?.securitySchemes?.['systemClient'] as { flows: { clientCredentials: { scopes: Record<string, string> } } }).flows
      .clientCredentials.scopes;
    const required = new Set(operations.flatMap(({ operation }) => operation.security?.flatMap((requirement) => requirement['systemClient'] ?? []) ?? []));
    expect([...required].sort()).toEqual(Object.keys(scopes).sort());
    expect(paths['/api/v2/fhir/Bundle']?.post?.security).toEqual([{ bearer: [] }, { systemClient: ['system/Bundle.c'] }]);
    expect(paths['/api/v1/kliniken/free-beds']?.get?.security).toEqual([{ bearer: [] }, { systemClient: ['api:kliniken'] }]);
  });

  it('gives every path OPTIONS (204 with Allow, no token) and HEAD beside GET, and every other operation a 405 with Allow in the form of its surface', () => {
    for (const [path, item] of Object.entries(paths)) {
      expect({ path, options: item.options?.responses['204']?.headers?.['Allow'], security: item.options?.security }).toEqual({
        path,
        options: { $ref: '#/components/headers/Allow' },
        security: [],
      });
      expect({ path, head: Boolean(item.head) }).toEqual({ path, head: Boolean(item.get) });
    }
    for (const { path, method, operation } of operations.filter(({ method }) => method !== 'options')) {
      const expected = path.startsWith('/api/v2/fhir') ? '#/components/responses/FhirMethodNotAllowed' : '#/components/responses/MethodNotAllowed';
      expect({ path, method, answer: operation.responses['405'] }).toEqual({ path, method, answer: { $ref: expected } });
    }
    const responses = document.components?.responses as Record<string, Answer>;
    expect(bodyOf(responses['FhirMethodNotAllowed'], 'application/fhir+json')).toEqual({ $ref: '#/components/schemas/OperationOutcome' });
    expect(bodyOf(responses['MethodNotAllowed'])).toEqual({ $ref: '#/components/schemas/ApiError' });
  });

  it('gives every route behind the token guard 401 with WWW-Authenticate, 429 and 503 with Retry-After, each in the error form of its path', () => {
    const guarded = operations.filter(({ operation }) => operation.security?.length);
    expect(guarded.length).toBeGreaterThan(20);
    for (const { path, method, operation } of guarded) {
      const errorBody = path.startsWith('/api/v2/fhir') ? bodyOf(operation.responses['401'], 'application/fhir+json') : bodyOf(operation.responses['401']);
      expect({ path, method, errorBody }).toEqual({
        path,
        method,
        errorBody: method === 'head' ? undefined : { $ref: `#/components/schemas/${path.startsWith('/api/v2/fhir') ? 'OperationOutcome' : 'ApiError'}` },
      });
      expect(operation.responses['401']?.headers?.['WWW-Authenticate']).toEqual({ $ref: '#/components/headers/WwwAuthenticate' });
      for (const status of ['429', '503']) {
        expect({ path, method, status, header: operation.responses[status]?.headers?.['Retry-After'] }).toEqual({
          path,
          method,
          status,
          header: { $ref: '#/components/headers/RetryAfter' },
        });
      }
    }
    // 403 for a system client's token without the route's scope everywhere, and for the other role where one is required.
    expect(paths['/api/v1/kliniken']?.get?.responses['403']?.description).toMatch(/^a system client's token without the scope/);
    expect(paths['/api/v2/fhir/Task']?.get?.responses['403']?.description).toMatch(/^a system client's token without the scope/);
    expect(paths['/api/v1/subscriptions']?.post?.responses['403']?.description).toMatch(/^Not a referrer token; or a system client's token/);
  });

  it('gives every answer the correlation id', () => {
    for (const { path, method, operation } of operations) {
      for (const [status, answer] of Object.entries(operation.responses).filter(([, answer]) => !answer.$ref)) {
        expect({ path, method, status, header: answer.headers?.['x-correlation-id'] }).toEqual({
          path,
          method,
          status,
          header: { $ref: '#/components/headers/CorrelationId' },
        });
      }
    }
  });

  it('takes a bundle in both FHIR content types and answers 202 with Location, or 400, 401, 403, 404, 409, 413, 415, 429, 503', () => {
    const post = paths['/api/v2/fhir/Bundle']?.post;
    expect(Object.keys(post?.requestBody?.content ?? {})).toEqual([...FHIR_CONTENT_TYPES]);
    expect(post?.responses['202']?.headers).toMatchObject({
      Location: { $ref: '#/components/headers/TaskSearchLocation' },
      'Content-Location': { $ref: '#/components/headers/TaskSearchLocation' },
    });
    expect(Object.keys(post?.responses ?? {}).sort()).toEqual(['202', '400', '401', '403', '404', '405', '409', '413', '415', '429', '503']);
  });

  it('gives the token answers of the spec, not to be cached', () => {
    expect(schemas['TokenResponse']?.required?.sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken', 'tokenType']);
    for (const path of ['/api/v1/token/login', '/api/v1/token/refresh', '/api/v1/token/revoke']) {
      expect(paths[path]?.post?.responses['200']?.headers).toMatchObject({
        'Cache-Control': { $ref: '#/components/headers/NoStore' },
        Pragma: { $ref: '#/components/headers/NoCache' },
      });
      // A failed login or refresh is auth's answer, not the token guard's: no challenge.
      expect(paths[path]?.post?.responses['401']?.headers?.['WWW-Authenticate']).toBeUndefined();
      expect(paths[path]?.post?.security).toEqual([]);
    }
  });

  it('describes the Task as the contract intake sends it, and a Task subsetted by _elements', () => {
    const task = schemas['Task'];
    expect(task?.required).toEqual(expect.arrayContaining(['resourceType', 'id', 'status', 'intent', 'basedOn', 'owner', 'requester', 'lastModified']));
    expect(task?.properties?.['status']?.enum).toEqual(TaskStatus.options);
    expect(task?.properties?.['businessStatus']?.properties?.['coding']?.items?.properties?.['code']?.enum).toEqual(BusinessStatus.options);
    expect(schemas['TaskSubset']?.required?.sort()).toEqual(['id', 'intent', 'meta', 'resourceType', 'status']);
    expect(bodyOf(paths['/api/v2/fhir/Task/{id}']?.get?.responses['200'], 'application/fhir+json')).toEqual({
      anyOf: [{ $ref: '#/components/schemas/Task' }, { $ref: '#/components/schemas/TaskSubset' }],
    });
  });

  it('lists the Task search parameters intake parses, and _format', () => {
    const names = paths['/api/v2/fhir/Task']?.get?.parameters?.map((parameter) => parameter.name);
    expect(names).toEqual([
      ...[...TASK_SEARCH_PARAMETERS, ...TASK_RESULT_PARAMETERS].map((parameter): string => parameter.name),
      'based-on:identifier',
      '_offset',
      '_cursor',
      '_format',
    ]);
    expect(Object.keys(paths['/api/v2/fhir/Task']?.get?.responses ?? {})).toContain('406');
  });

  it('describes the request bodies with the schemas their routes read them with: strict objects', () => {
    const requestOf = (path: string, method: 'post' | 'put') => paths[path]?.[method]?.requestBody?.content['application/json']?.schema;
    expect(requestOf('/api/v1/clinic/tasks/{taskId}/answer', 'post')).toEqual({ $ref: '#/components/schemas/ClinicAnswer' });
    expect(schemas['ClinicAnswer']?.properties?.['businessStatus']?.enum).toEqual(BusinessStatus.options);
    for (const [path, method, name] of [
      ['/api/v1/token/login', 'post', 'LoginRequest'],
      ['/api/v1/token/refresh', 'post', 'RefreshRequest'],
      ['/api/v1/token/revoke', 'post', 'RevokeRequest'],
      ['/api/v1/subscriptions', 'post', 'SubscribeRequest'],
      ['/api/v1/subscriptions/{id}', 'put', 'ChangeAddressRequest'],
      ['/api/v1/clinic/tasks/{taskId}/answer', 'post', 'ClinicAnswer'],
      ['/api/v1/clinic/tasks/{taskId}/withdraw-acceptance', 'post', 'AcceptanceWithdrawal'],
      ['/api/v1/clinic/capacity', 'put', 'BedCount'],
      ['/api/v1/clinic/capacity/auto-answer', 'put', 'AutoAnswerRequest'],
      ['/api/v1/clinic/capacity/visibility', 'put', 'FreeBedsVisibilityRequest'],
      ['/api/v1/party/users', 'post', 'NewPartyMember'],
    ] as const) {
      expect({ path, body: requestOf(path, method) }).toEqual({ path, body: { $ref: `#/components/schemas/${name}` } });
      expect({ name, additionalProperties: schemas[name]?.additionalProperties }).toEqual({ name, additionalProperties: false });
    }
  });

  it("gives the party's people their administrator's 403 and the party itself only the scope's, a person added 201 or 409, a person disabled 404 or 409", () => {
    expect(paths['/api/v1/party']?.get?.responses['403']?.description).toMatch(/^a system client's token without the scope/);
    expect(bodyOf(paths['/api/v1/party']?.get?.responses['200'])).toEqual({ $ref: '#/components/schemas/Party' });
    expect(bodyOf(paths['/api/v1/party/users']?.get?.responses['200'])).toEqual({ $ref: '#/components/schemas/PartyMemberList' });
    expect(Object.keys(paths['/api/v1/party/users']?.post?.responses ?? {}).sort()).toEqual([
      '201',
      '400',
      '401',
      '403',
      '405',
      '409',
      '413',
      '415',
      '429',
      '503',
    ]);
    expect(Object.keys(paths['/api/v1/party/users/{id}/disable']?.post?.responses ?? {}).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '405',
      '409',
      '429',
      '503',
    ]);
    expect(schemas['PartyMember']?.properties?.['passwordHash']).toBeUndefined();
    expect(schemas['NewPartyMember']?.required?.sort()).toEqual(['password', 'username']);
  });

  it('gives the delivery log and the event list their page parameters and answers', () => {
    const parametersOf = (path: string) => paths[path]?.get?.parameters?.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
    expect(parametersOf('/api/v1/subscriptions/{id}/deliveries')).toEqual(['limit', 'cursor', 'status', 'since']);
    expect(parametersOf('/api/v1/subscriptions/{id}/events')).toEqual(['since', 'limit']);
    expect(bodyOf(paths['/api/v1/subscriptions/{id}/deliveries']?.get?.responses['200'])).toEqual({ $ref: '#/components/schemas/DeliveryLog' });
    expect(bodyOf(paths['/api/v1/subscriptions/{id}/events']?.get?.responses['200'])).toEqual({ $ref: '#/components/schemas/WebhookEventList' });
    expect({ required: schemas['DeliveryLog']?.required, next: schemas['DeliveryLog']?.properties?.['next']?.type }).toEqual({
      required: ['items'],
      next: 'string',
    });
    expect(schemas['Delivery']?.properties?.['status']?.enum).toEqual(['pending', 'delivered', 'failed', 'withheld']);
    expect(schemas['WebhookEventList']?.properties?.['items']?.items).toMatchObject({
      oneOf: [{ $ref: '#/components/schemas/AdmissionResponseEvent' }, { $ref: '#/components/schemas/AdmissionOverdueEvent' }],
    });
  });

  it("gives the clinic's reads of versions and documents their page parameters, total and next, and one document by its position", () => {
    const parametersOf = (path: string) => paths[path]?.get?.parameters?.map((parameter) => `${parameter.in}:${parameter.name}`);
    expect(parametersOf('/api/v1/clinic/tasks/{taskId}/versions')).toEqual(['path:taskId', 'query:_count', 'query:_offset', 'query:_sort']);
    expect(parametersOf('/api/v1/clinic/tasks/{taskId}/documents')).toEqual(['path:taskId', 'query:_count', 'query:_offset']);
    expect(parametersOf('/api/v1/clinic/tasks/{taskId}/documents/{n}')).toEqual(['path:taskId', 'path:n']);
    for (const name of ['ClinicDocumentList', 'RequestVersionList']) {
      expect({ name, required: schemas[name]?.required?.sort(), next: schemas[name]?.properties?.['next']?.type }).toEqual({
        name,
        required: ['items', 'total'],
        next: 'string',
      });
    }
    const one = paths['/api/v1/clinic/tasks/{taskId}/documents/{n}']?.get;
    expect(bodyOf(one?.responses['200'], 'application/fhir+json')).toEqual({ $ref: '#/components/schemas/DocumentBundle' });
    for (const path of ['versions', 'bundle', 'documents', 'documents/{n}']) {
      expect({ path, cacheControl: paths[`/api/v1/clinic/tasks/{taskId}/${path}`]?.get?.responses['200']?.headers?.['Cache-Control'] }).toEqual({
        path,
        cacheControl: { $ref: '#/components/headers/NoStore' },
      });
    }
    expect(Object.keys(one?.responses ?? {}).sort()).toEqual(['200', '400', '401', '403', '404', '405', '410', '429', '503']);
  });

  it.each([
    ['AdmissionResponse', 'AdmissionResponseEvent'],
    ['AdmissionOverdue', 'AdmissionOverdueEvent'],
  ])('describes the %s webhook: its Standard Webhooks headers and the body with the Task', (type, schema) => {
    const webhook = (document.webhooks as Record<string, PathItem>)[type]?.post;
    expect(webhook?.parameters?.map(({ name, in: where, required }) => [name, where, required])).toEqual([
      ['webhook-id', 'header', true],
      ['webhook-timestamp', 'header', true],
      ['webhook-signature', 'header', true],
    ]);
    expect(webhook?.requestBody?.content['application/json']?.schema).toEqual({ $ref: `#/components/schemas/${schema}` });
    const event = schemas[schema];
    expect(event?.required?.sort()).toEqual(['data', 'id', 'sequence', 'timestamp', 'type']);
    expect(event?.properties?.['type']).toMatchObject({ enum: [type] });
    // The whole Task (payload `full`) or its ids and state (payload `id-only`).
    expect(event?.properties?.['data']).toEqual({ anyOf: [{ $ref: '#/components/schemas/Task' }, { $ref: '#/components/schemas/IdOnlyTask' }] });
    expect(schemas['IdOnlyTask']?.required?.sort()).toEqual(['basedOn', 'id', 'lastModified', 'owner', 'resourceType']);
    expect(Object.keys(schemas['IdOnlyTask']?.properties ?? {})).not.toContain('note');
  });

  it('describes the Heartbeat webhook: no sequence of its own, the latest one in data; its signature header names the rotation', () => {
    const webhook = (document.webhooks as Record<string, PathItem>)['Heartbeat']?.post;
    expect(webhook?.requestBody?.content['application/json']?.schema).toEqual({ $ref: '#/components/schemas/HeartbeatEvent' });
    expect(schemas['HeartbeatEvent']?.required?.sort()).toEqual(['data', 'id', 'timestamp', 'type']);
    expect(JSON.stringify(schemas['HeartbeatEvent']?.properties?.['data'])).toContain('lastSequence');
    expect(JSON.stringify(webhook?.parameters)).toContain('rotate-secret');
  });

  it('offers both event types to a subscription', () => {
    expect(schemas['SubscribeRequest']?.properties?.['eventType']).toMatchObject({ enum: ['AdmissionResponse', 'AdmissionOverdue'] });
  });

  it('composes no schema with allOf (the end-to-end check closes objects one by one)', () => {
    expect(JSON.stringify(document)).not.toContain('"allOf"');
  });
});
