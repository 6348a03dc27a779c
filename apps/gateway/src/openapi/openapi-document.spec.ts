import { BusinessStatus, TaskStatus } from '@bedrequest/contracts';
import { openApiDocument } from './openapi-document';

interface JsonSchema {
  type?: string;
  enum?: string[];
  required?: string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
}

describe('OpenAPI document', () => {
  const document = openApiDocument({ serverUrl: 'http://127.0.0.1:8080' });

  it('describes every public endpoint of the spec and decisions.md', () => {
    expect(Object.keys(document.paths ?? {}).sort()).toEqual(
      [
        '/api/v1/clinic/capacity',
        '/api/v1/clinic/tasks/{taskId}/answer',
        '/api/v1/clinic/tasks/{taskId}/bundle',
        '/api/v1/clinic/tasks/{taskId}/documents',
        '/api/v1/kliniken',
        '/api/v1/subscriptions',
        '/api/v1/subscriptions/{id}',
        '/api/v1/subscriptions/{id}/deliveries',
        '/api/v1/subscriptions/{id}/deliveries/{eventId}/retry',
        '/api/v1/subscriptions/{id}/events',
        '/api/v1/token/login',
        '/api/v1/token/refresh',
        '/api/v1/token/status',
        '/api/v2/fhir/Bundle',
        '/api/v2/fhir/Task',
        '/api/v2/fhir/Task/{id}',
      ].sort(),
    );
  });

  it('gives the token response of the spec', () => {
    const tokenResponse = document.components?.schemas?.['TokenResponse'] as { required?: string[] };
    expect(tokenResponse.required?.sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken', 'tokenType']);
  });

  it('describes the Task as the contract intake sends it', () => {
    const task = document.components?.schemas?.['Task'] as JsonSchema;
    expect(task.required).toEqual(expect.arrayContaining(['resourceType', 'id', 'status', 'intent', 'basedOn', 'owner', 'requester', 'lastModified']));
    expect(task.properties?.['status']?.enum).toEqual(TaskStatus.options);
    expect(task.properties?.['businessStatus']?.properties?.['coding']?.items?.properties?.['code']?.enum).toEqual(BusinessStatus.options);
  });

  it('describes the clinic answer with the schema the clinic API checks it with', () => {
    const body = document.paths?.['/api/v1/clinic/tasks/{taskId}/answer']?.post?.requestBody as { content: Record<string, { schema: JsonSchema }> };
    const schema = body.content['application/json']!.schema;
    expect(schema.required).toEqual(['businessStatus']);
    expect(schema.properties?.['businessStatus']?.enum).toEqual(BusinessStatus.options);
  });
});
