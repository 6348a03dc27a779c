// How every end-to-end test calls the gateway: one fetch, the body parsed, and the answer checked
// against the interface's own promises before the test sees it. Every FHIR JSON answer (searchsets,
// Tasks, bundles, OperationOutcomes of every error, the CapabilityStatement) must pass a FHIR R4
// validator from outside the project, so the end-to-end suite as a whole validates each kind of
// resource the service returns in the flows that produce it.
import { expectValidFhir } from '@bedrequest/testing';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface ApiCallOptions {
  token?: string;
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

/** How many FHIR answers the outside validator has accepted in this test file. */
export const validatedFhirAnswers = { count: 0 };

export async function callApi<T = unknown>(baseUrl: string, method: string, path: string, options: ApiCallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = options.contentType ?? (path.startsWith('/api/v2/fhir') ? 'application/fhir+json' : 'application/json');
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  if (isFhirJson(response.headers) && method !== 'HEAD') {
    expectValidFhir(parsed, `${method} ${path.split('?')[0]} → ${response.status}`);
    validatedFhirAnswers.count++;
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

function isFhirJson(headers: Headers): boolean {
  return (headers.get('content-type') ?? '').startsWith('application/fhir+json');
}
