// How every end-to-end test calls the gateway: one fetch, the body parsed, and the answer checked
// against the interface's own promises before the test sees it:
// - against the OpenAPI document the gateway serves (read from its sources, openapi-contract.ts):
//   the status must be one the document declares for the operation, the declared headers must be
//   there and the body must match the declared schema, so the suite as a whole replays real calls
//   against the document and fails on any undeclared status or shape;
// - every FHIR JSON answer (searchsets, Tasks, bundles, OperationOutcomes of every error, the
//   CapabilityStatement) must pass a FHIR R4 validator from outside the project, so the suite
//   validates each kind of resource the service returns in the flows that produce it.
import { expectValidFhir } from '@bedrequest/testing';
import { openApiContract, type Exchange } from './openapi-contract';

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
  const exchange = await fetchExchange(baseUrl, method, path, options);
  openApiContract().check(exchange);
  if (isFhirJson(exchange.headers) && method !== 'HEAD') {
    expectValidFhir(exchange.body, `${method} ${path.split('?')[0]} → ${exchange.status}`);
    validatedFhirAnswers.count++;
  }
  return { status: exchange.status, headers: exchange.headers, body: exchange.body as T };
}

/** The call and its answer as they are, checked against nothing: the body parsed when it is JSON, else its text. */
export async function fetchExchange(baseUrl: string, method: string, path: string, options: ApiCallOptions = {}): Promise<Exchange> {
  // A connection per call: a test's event loop, which an in-process stack shares, can stop for a
  // second or more (the outside FHIR validator loading its definitions, the contract compiling its
  // schemas, a loaded machine), and a kept-alive connection the server closed meanwhile would be
  // reused before its close is read: "other side closed" / ECONNRESET, a failure of the client.
  const headers: Record<string, string> = { connection: 'close', ...options.headers };
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
  return { method, path, status: response.status, headers: response.headers, body: parsed, text };
}

function isFhirJson(headers: Headers): boolean {
  return (headers.get('content-type') ?? '').startsWith('application/fhir+json');
}
