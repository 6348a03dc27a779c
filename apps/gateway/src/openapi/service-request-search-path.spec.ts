import { openApiDocument } from './openapi-document';

interface Operation {
  parameters?: { name: string; in: string; required?: boolean }[];
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> }>;
}

describe('OpenAPI document: the referrer reads back a request', () => {
  const paths = openApiDocument({ serverUrl: 'http://127.0.0.1:8080' }).paths as Record<string, Record<string, Operation>>;
  const item = paths['/api/v2/fhir/ServiceRequest'];

  it('takes GET (and HEAD) beside the erasure, with identifier required and _format', () => {
    expect(Object.keys(item ?? {}).sort()).toEqual(['delete', 'get', 'head', 'options']);
    expect(item?.get?.parameters?.map(({ name, in: where, required }) => ({ name, where, required: required ?? false }))).toEqual([
      { name: 'identifier', where: 'query', required: true },
      { name: '_format', where: 'query', required: false },
    ]);
  });

  it('answers a searchset not to be cached, or 400, 401, 403 (clinic tokens), 406, 410 (erased), 429, 503', () => {
    const get = item?.get;
    expect(Object.keys(get?.responses ?? {}).sort()).toEqual(['200', '400', '401', '403', '405', '406', '410', '429', '503']);
    expect(get?.responses['200']?.headers?.['Cache-Control']).toEqual({ $ref: '#/components/headers/NoStore' });
    expect(get?.responses['200']?.content?.['application/fhir+json']?.schema).toEqual({ $ref: '#/components/schemas/RequestSearchSet' });
  });
});
