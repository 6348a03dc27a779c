import { openApiDocument } from './openapi-document';

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
});
