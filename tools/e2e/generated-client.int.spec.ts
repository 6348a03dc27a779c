// An integrator's client generated from the OpenAPI document the running gateway serves (docs/api.md,
// "OpenAPI document"): openapi-typescript turns GET /api/openapi.json into types, a small program
// calls the API through openapi-fetch with them, the TypeScript compiler checks the program against
// the types, and the program then logs in, subscribes to webhooks, sends a Bundle and finds its Task.
// A renamed path, parameter or operationId in the document fails the compilation, and so this test.
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type * as OpenapiTypescript from 'openapi-typescript';
import ts from 'typescript';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { WebhookReceiver, waitFor } from '@bedrequest/testing';
import { passwordOf, startE2eStack, type E2eStack } from './e2e-stack';

/**
 * What an integrator writes against the generated types: each call by path with openapi-fetch, the
 * shapes it reads named by operationId. Compiled as it is; its lines are what a failed compilation names.
 */
const INTEGRATOR_PROGRAM = `import createClient from 'openapi-fetch';
import type { operations, paths } from './openapi';

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type FhirJson<T> = T extends { content: { 'application/fhir+json': infer Body } } ? Body : never;
export type TokenPair = Json<operations['loginWithPassword']['responses'][200]>;
export type Subscription = Json<operations['createSubscription']['responses'][201]>;
export type AdmissionRequest = FhirJson<operations['createBundle']['requestBody']>;
export type TaskSearchSet = FhirJson<operations['searchTask']['responses'][200]>;

/** The client of a hospital's system; a connection per call, as the stack shares this process. */
export function hospitalClient(baseUrl: string) {
  const client = createClient<paths>({ baseUrl, headers: { connection: 'close' } });
  const bearer = (token: string) => ({ Authorization: 'Bearer ' + token });
  return {
    async login(username: string, password: string): Promise<{ status: number; tokens?: TokenPair }> {
      const { data, response } = await client.POST('/api/v1/token/login', { body: { username, password } });
      return { status: response.status, tokens: data };
    },
    async subscribe(token: string, callbackUrl: string): Promise<{ status: number; subscription?: Subscription }> {
      const { data, response } = await client.POST('/api/v1/subscriptions', {
        headers: bearer(token),
        body: { eventType: 'AdmissionResponse', callbackUrl },
      });
      return { status: response.status, subscription: data };
    },
    async send(token: string, bundle: AdmissionRequest): Promise<{ status: number; location: string | null }> {
      const { response } = await client.POST('/api/v2/fhir/Bundle', {
        headers: { ...bearer(token), 'Content-Type': 'application/fhir+json' },
        body: bundle,
      });
      return { status: response.status, location: response.headers.get('location') };
    },
    async searchTasks(token: string, requestIdentifier: string): Promise<{ status: number; tasks: TaskSearchSet['entry'] }> {
      const { data, response } = await client.GET('/api/v2/fhir/Task', {
        headers: bearer(token),
        params: { query: { 'based-on': requestIdentifier } },
      });
      return { status: response.status, tasks: data?.entry };
    },
  };
}
`;

/** The program's client as this test file sees it, once jest has loaded the program. */
type HospitalClient = (baseUrl: string) => {
  login(username: string, password: string): Promise<{ status: number; tokens?: { accessToken: string } }>;
  subscribe(token: string, callbackUrl: string): Promise<{ status: number; subscription?: { id: string; eventType: string; secret?: string } }>;
  send(token: string, bundle: unknown): Promise<{ status: number; location: string | null }>;
  searchTasks(token: string, requestIdentifier: string): Promise<{ status: number; tasks?: { resource: { owner: { identifier: { value: string } } } }[] }>;
};

/** Where the generated files go: inside the workspace, so that `openapi-fetch` resolves from its node_modules. */
const WORKSPACE_TMP = join(__dirname, '..', '..', 'tmp');

/**
 * openapi-typescript's types of a document, as the .d.ts an integrator keeps beside the program.
 * Its CommonJS build requires ESM-only packages (parse-json), which Node loads and jest's module
 * registry does not: it is loaded with the worker's own require (tools/jest/node-environment.cjs),
 * and given the document as text, so that no object crosses between the two.
 */
async function generatedTypes(document: unknown): Promise<string> {
  const workerRequire = (globalThis as { __workerRequire?: (id: string) => unknown }).__workerRequire;
  if (!workerRequire) throw new Error("openapi-typescript needs the test environment's worker require (tools/jest/node-environment.cjs)");
  const { default: openapiTS, astToString } = workerRequire('openapi-typescript') as typeof OpenapiTypescript;
  return astToString(await openapiTS(JSON.stringify(document), { silent: true }));
}

/** Writes the types and the program beside them to `folder`; the program's file. */
function writeProgram(folder: string, types: string): string {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'openapi.d.ts'), types);
  writeFileSync(join(folder, 'integrator.ts'), INTEGRATOR_PROGRAM);
  return join(folder, 'integrator.ts');
}

/** The TypeScript compiler's diagnostics of the program with its generated types, each as `file:line: the line — message`. */
function compile(program: string): string[] {
  const folder = dirname(program);
  const options: ts.CompilerOptions = {
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    // fetch and its Request and Response, as openapi-fetch's types name them.
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
  };
  return ts.getPreEmitDiagnostics(ts.createProgram([program], options)).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n').split('\n')[0];
    if (!diagnostic.file || diagnostic.start === undefined) return message ?? '';
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${relative(folder, diagnostic.file.fileName)}:${line + 1}: ${diagnostic.file.text.split('\n')[line]?.trim()} — ${message}`;
  });
}

describe("an integrator's client generated from the served OpenAPI document", () => {
  let stack: E2eStack;
  let document: Record<string, unknown>;
  let program: string;
  const folder = join(WORKSPACE_TMP, `generated-client-${randomUUID()}`);
  const receiver = new WebhookReceiver();
  const username = `generated-client-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    stack = await startE2eStack();
    for (const ik of FIXTURE_PERFORMER_IKS) await stack.registerClinic(ik, `Rehaklinik ${ik}`, ['2300']);
    await stack.createReferrer(username, [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    const served = await fetch(`${stack.gatewayUrl}/api/openapi.json`, { headers: { connection: 'close' } });
    expect(served.status).toBe(200);
    document = (await served.json()) as Record<string, unknown>;
    program = writeProgram(join(folder, 'served'), await generatedTypes(document));
  }, 120_000);

  afterAll(async () => {
    rmSync(folder, { recursive: true, force: true });
    await receiver.stop();
    await stack?.stop();
  });

  it('compiles against the types of the served document', () => {
    expect(compile(program)).toEqual([]);
  });

  it('does not compile once the document renames a path, a parameter or an operationId the program uses', async () => {
    const renamed = JSON.parse(JSON.stringify(document)) as {
      paths: Record<string, Record<string, { operationId?: string; parameters?: { name: string; in: string }[] }>>;
    };
    renamed.paths['/api/v1/webhook-subscriptions'] = renamed.paths['/api/v1/subscriptions']!;
    delete renamed.paths['/api/v1/subscriptions'];
    const search = renamed.paths['/api/v2/fhir/Task']!['get']!;
    search.operationId = 'findTasks';
    for (const parameter of search.parameters ?? []) if (parameter.name === 'based-on') parameter.name = 'basedOn';

    const failed = compile(writeProgram(join(folder, 'renamed'), await generatedTypes(renamed)));
    // One error each, on the line that uses the old name.
    for (const line of ["client.POST('/api/v1/subscriptions'", "'based-on': requestIdentifier", "operations['searchTask']"]) {
      expect({ line, errors: failed.filter((diagnostic) => diagnostic.includes(line)).length }).toEqual({ line, errors: 1 });
    }
    expect(failed).toHaveLength(3);
  });

  it('logs in, subscribes to webhooks, sends a Bundle and finds its Task through the compiled client', async () => {
    // The program the first test compiles, run by jest's TypeScript transform (as every test file is).
    const { hospitalClient } = require(program) as { hospitalClient: HospitalClient };
    const client = hospitalClient(stack.gatewayUrl);

    const login = await client.login(username, passwordOf(username));
    expect(login.status).toBe(200);
    const token = login.tokens!.accessToken;

    const subscription = await client.subscribe(token, await receiver.start());
    expect({ status: subscription.status, eventType: subscription.subscription?.eventType }).toEqual({ status: 201, eventType: 'AdmissionResponse' });
    expect(subscription.subscription?.secret).toMatch(/^whsec_/);

    const requestIdentifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const sent = await client.send(token, admissionRequestBundle({ requestIdentifier }));
    expect(sent).toEqual({ status: 202, location: `/api/v2/fhir/Task?based-on=${encodeURIComponent(requestIdentifier)}` });

    const tasks = await waitFor(
      async () => {
        const search = await client.searchTasks(token, requestIdentifier);
        expect(search.status).toBe(200);
        return search.tasks?.length === FIXTURE_PERFORMER_IKS.length ? search.tasks : undefined;
      },
      { what: 'the Task of the request, found through the generated client' },
    );
    expect(tasks.map((entry) => entry.resource.owner.identifier.value).sort()).toEqual([...FIXTURE_PERFORMER_IKS].sort());
  });
});
