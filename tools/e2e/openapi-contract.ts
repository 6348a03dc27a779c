// The OpenAPI document as a contract the end-to-end tests hold every answer to: the operation is
// found by method and path template, its status must be one the document declares for it, the
// headers it declares as required must be there, and the body must be of a declared media type and
// valid against the declared JSON Schema (ajv, draft 2020-12, the dialect of OpenAPI 3.1).
//
// One rule is stricter than JSON Schema's default: an object the document declares without saying
// whether other properties may come (a zod `z.object`, as opposed to a `looseObject`) must carry
// only its declared properties, so that a field a route adds without documenting it fails too.
import { join } from 'node:path';
import type { ErrorObject } from 'ajv';
import { openApiDocument, type OpenApiDocument } from '../../apps/gateway/src/openapi/openapi-document';
import { closed, METHODS, type Answer, type Method, type PathItem } from './openapi-document-parts';
import type * as OpenApiSchemas from './openapi-schemas.cjs';

/** One call as the client saw it. */
export interface Exchange {
  method: string;
  /** As called, with the query. */
  path: string;
  status: number;
  headers: Headers;
  /** The body parsed as JSON, or the text when it was not JSON. */
  body: unknown;
  text: string;
}

/** The answers a path no template matches may give: 404, or what the token guard of its prefix answers first. */
const UNDOCUMENTED_PATH_STATUSES = [401, 403, 404, 429];
/** The document's id for ajv: the base the document's own `#/components/...` references resolve against. */
const DOCUMENT_ID = 'https://gateway.invalid/api/openapi.json';
/** How much of a body a failure message quotes. */
const QUOTED_BODY_LENGTH = 600;

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

export class OpenApiContract {
  /** `GET /api/v2/fhir/Task/{id} → 404`: every declared answer a checked call was matched to. */
  readonly exercised = new Set<string>();
  /** The document's schemas compiled (openapi-schemas.cjs), and the key it has there. */
  private readonly schemas = compiledSchemas();
  private readonly documentKey: string;
  private readonly templates: { template: string; pattern: RegExp; parameters: number }[];

  /** `precompile`: compile every answer's schema now rather than at the first answer that needs it. */
  constructor(
    private readonly document: OpenApiDocument,
    options: { precompile?: boolean } = {},
  ) {
    this.documentKey = this.schemas.register(JSON.stringify({ ...(closed(structuredClone(document)) as object), $id: DOCUMENT_ID }));
    this.templates = Object.keys(document.paths ?? {})
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        parameters: (template.match(/\{/g) ?? []).length,
      }))
      // A literal segment wins over a parameter where both match.
      .sort((a, b) => a.parameters - b.parameters);
    if (options.precompile) this.compileAnswerSchemas();
  }

  /** Every documented operation, `GET /api/v1/kliniken`. */
  operations(): string[] {
    return Object.entries(this.document.paths ?? {}).flatMap(([template, item]) =>
      METHODS.filter((method) => (item as PathItem)[method]).map((method) => `${method.toUpperCase()} ${template}`),
    );
  }

  /** The documented operations no checked call reached. */
  unexercisedOperations(): string[] {
    const reached = new Set([...this.exercised].map((answer) => answer.slice(0, answer.lastIndexOf(' → '))));
    return this.operations().filter((operation) => !reached.has(operation));
  }

  /** Throws a ContractViolation naming what the document does not declare of this answer. */
  check(exchange: Exchange): void {
    const method = exchange.method.toLowerCase() as Method;
    const path = normalisedPath(exchange.path);
    const what = `${exchange.method} ${shortened(exchange.path, 200)} → ${exchange.status}`;
    const template = this.templates.find((candidate) => candidate.pattern.test(path))?.template;
    if (!template) return this.checkUndocumentedPath(exchange, path, what);

    const item = this.document.paths?.[template] as PathItem;
    const operation = item[method];
    const pointer = `#/paths/${escaped(template)}`;
    if (!operation) {
      // A method the path does not take: 405, as every operation of the path declares it.
      const declaring = METHODS.find((other) => item[other]?.responses['405']);
      if (exchange.status !== 405 || !declaring) {
        throw new ContractViolation(`${what}: ${template} has no ${exchange.method} operation: only a 405 its operations declare may answer it`);
      }
      this.exercised.add(`${exchange.method} ${template} → 405 (undeclared method)`);
      return this.checkAnswer(exchange, `${pointer}/${declaring}/responses/405`, what);
    }
    const declared = operation.responses[String(exchange.status)] ? String(exchange.status) : `${String(exchange.status)[0]}XX`;
    if (!operation.responses[declared]) {
      throw new ContractViolation(
        `${what}: the document declares no ${exchange.status} for ${exchange.method} ${template} (it declares ${Object.keys(operation.responses).join(', ')})`,
      );
    }
    this.exercised.add(`${exchange.method} ${template} → ${declared}`);
    this.checkAnswer(exchange, `${pointer}/${method}/responses/${escaped(declared)}`, what);
  }

  /** A webhook request as a receiver got it (its body parsed), against the document's `webhooks` section. */
  checkWebhook(name: string, headers: Record<string, string | string[] | undefined>, body: unknown): void {
    const what = `webhook ${name}`;
    const operation = (this.document.webhooks?.[name] as PathItem | undefined)?.post;
    if (!operation?.requestBody) throw new ContractViolation(`${what}: the document declares no such webhook`);
    operation.parameters?.forEach((parameter, index) => {
      if (parameter.in !== 'header') return;
      const value = headers[parameter.name.toLowerCase()];
      if (value === undefined) {
        if (parameter.required) throw new ContractViolation(`${what}: the header ${parameter.name} is missing`);
        return;
      }
      this.validate(`#/webhooks/${escaped(name)}/post/parameters/${index}/schema`, String(value), `${what}: the header ${parameter.name}`);
    });
    const contentType = mediaTypeOf(headers['content-type']);
    if (!operation.requestBody.content[contentType]) throw new ContractViolation(`${what}: the content type ${contentType || '(none)'} is not declared`);
    this.validate(`#/webhooks/${escaped(name)}/post/requestBody/content/${escaped(contentType)}/schema`, body, `${what}: the body`);
  }

  private checkUndocumentedPath(exchange: Exchange, path: string, what: string): void {
    if (!UNDOCUMENTED_PATH_STATUSES.includes(exchange.status)) {
      throw new ContractViolation(`${what}: no path of the document matches ${path}, so only ${UNDOCUMENTED_PATH_STATUSES.join(', ')} may answer it`);
    }
    // The error body of the path's surface, as every documented path of that surface answers it.
    const fhir = path === '/api/v2/fhir' || path.startsWith('/api/v2/fhir/');
    this.exercised.add(`(undocumented path) → ${exchange.status}`);
    if (exchange.method === 'HEAD') return;
    const mediaType = fhir ? 'application/fhir+json' : 'application/json';
    if (mediaTypeOf(exchange.headers.get('content-type')) !== mediaType) {
      throw new ContractViolation(`${what}: an error of an unknown path must be ${mediaType}`);
    }
    this.validate(`#/components/schemas/${fhir ? 'OperationOutcome' : 'ApiError'}`, exchange.body, `${what}: the body`);
  }

  private checkAnswer(exchange: Exchange, pointer: string, what: string): void {
    const answer = this.resolve<Answer>(this.at<Answer>(pointer));
    const answerPointer = this.at<Answer>(pointer).$ref?.slice(1) ?? pointer.slice(1);
    for (const [name, declaration] of Object.entries(answer.headers ?? {})) {
      const header = this.resolve(declaration);
      const value = exchange.headers.get(name);
      if (value === null) {
        if (header.required) throw new ContractViolation(`${what}: the header ${name} the document requires is missing`);
        continue;
      }
      const headerPointer = declaration.$ref ? declaration.$ref.slice(1) : `${answerPointer}/headers/${escaped(name)}`;
      if (header.schema) this.validate(`#${headerPointer}/schema`, value, `${what}: the header ${name}`);
    }
    if (exchange.method === 'HEAD') return;
    if (!answer.content) {
      if (exchange.text !== '') {
        throw new ContractViolation(`${what}: the document declares no body, but one came: ${shortened(exchange.text, QUOTED_BODY_LENGTH)}`);
      }
      return;
    }
    const mediaType = mediaTypeOf(exchange.headers.get('content-type'));
    if (!answer.content[mediaType]) {
      throw new ContractViolation(`${what}: the content type ${mediaType || '(none)'} is not declared (${Object.keys(answer.content).join(', ')} is)`);
    }
    // A text type the document declares (the record's CSV) is checked as the text it is; any other body must be JSON.
    if (mediaType.startsWith('text/')) {
      this.validate(`#${answerPointer}/content/${escaped(mediaType)}/schema`, exchange.text, `${what}: the body`);
      return;
    }
    if (typeof exchange.body === 'string' || exchange.body === undefined) {
      throw new ContractViolation(`${what}: the body is not JSON: ${shortened(exchange.text, QUOTED_BODY_LENGTH)}`);
    }
    this.validate(`#${answerPointer}/content/${escaped(mediaType)}/schema`, exchange.body, `${what}: the body`);
  }

  /**
   * Every body schema of every answer, compiled now (about half a second, once per jest worker),
   * rather than one by one as answers come: a test that times its calls (a burst against the rate
   * limit) must not have its event loop, which an in-process stack shares, stopped by a compilation
   * between them.
   */
  private compileAnswerSchemas(): void {
    for (const [template, item] of Object.entries(this.document.paths ?? {})) {
      for (const method of METHODS) {
        for (const [status, answer] of Object.entries((item as PathItem)[method]?.responses ?? {})) {
          for (const mediaType of Object.keys(this.resolve(answer).content ?? {})) {
            const answerPointer = answer.$ref ?? `#/paths/${escaped(template)}/${method}/responses/${escaped(status)}`;
            this.compileSchema(`${answerPointer}/content/${escaped(mediaType)}/schema`);
          }
        }
      }
    }
  }

  private compileSchema(pointer: string): void {
    this.at(pointer);
    this.schemas.compile(this.documentKey, pointer);
  }

  private validate(pointer: string, value: unknown, what: string): void {
    this.at(pointer);
    const found = this.schemas.validate(this.documentKey, pointer, value);
    if (found === null) return;
    const errors = (JSON.parse(found) as ErrorObject[])
      .slice(0, 5)
      .map(
        (error) =>
          `${error.instancePath || '(root)'} ${error.message ?? ''}${error.params && 'additionalProperty' in error.params ? ` (${String(error.params.additionalProperty)})` : ''}`,
      );
    throw new ContractViolation(
      `${what} does not match the document (${pointer}): ${errors.join('; ')}\n${shortened(JSON.stringify(value) ?? '', QUOTED_BODY_LENGTH)}`,
    );
  }

  /** The node at a local pointer (`#/paths/...`). */
  private at<T>(pointer: string): T {
    let node: unknown = this.document;
    for (const part of pointer.slice(2).split('/')) node = (node as Record<string, unknown>)[unescaped(part)];
    if (node === undefined) throw new ContractViolation(`the document has nothing at ${pointer}`);
    return node as T;
  }

  private resolve<T extends { $ref?: string }>(node: T): T {
    return node.$ref ? this.at<T>(node.$ref) : node;
  }
}

/**
 * openapi-schemas.cjs as the worker process loaded it, where the test environment offers its require
 * (tools/jest/node-environment.cjs): compiled once per worker, not once per test file. Else this file's own.
 */
function compiledSchemas(): typeof OpenApiSchemas {
  const workerRequire = (globalThis as { __workerRequire?: (id: string) => unknown }).__workerRequire;
  return (workerRequire ? workerRequire(join(__dirname, 'openapi-schemas.cjs')) : require('./openapi-schemas.cjs')) as typeof OpenApiSchemas;
}

let contract: OpenApiContract | undefined;

/** The document of the gateway's sources, read once per test file (jest gives each file its own modules). */
export function openApiContract(): OpenApiContract {
  contract ??= new OpenApiContract(openApiDocument({ serverUrl: 'http://gateway.invalid' }), { precompile: true });
  return contract;
}

/** The path without query, without a trailing slash (express matches `/x/` as `/x`). */
function normalisedPath(path: string): string {
  const pathname = new URL(path, 'http://gateway.invalid').pathname;
  return pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
}

function mediaTypeOf(contentType: string | string[] | null | undefined): string {
  return (String(contentType ?? '').split(';')[0] ?? '').trim().toLowerCase();
}

/** A JSON pointer segment, as a URI fragment (ajv decodes it before unescaping). */
function escaped(segment: string): string {
  return encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'));
}

function unescaped(segment: string): string {
  return decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~');
}

function shortened(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length)}…(${text.length} characters)`;
}
