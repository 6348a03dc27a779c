import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { parse, Root, type Type } from 'protobufjs';
import { OTLP_TRACE_PROTOS } from './otlp-trace-protos';

/** A span as an OTLP export carries it (in either encoding), with the `service.name` of its resource. */
export interface ReceivedSpan {
  service: string;
  /** Lower-case hex, as OTLP/JSON writes it. */
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  links: { traceId: string; spanId: string }[];
  /** Strings, booleans, numbers (an int64 beyond 2^53 as a bigint), arrays, objects; bytes as base64. */
  attributes: Record<string, unknown>;
}

/** An export that could not be read: its media type and why. */
export interface RejectedExport {
  contentType: string;
  error: string;
}

/**
 * OTLP's ExportTraceServiceRequest in the OTLP/JSON mapping (ids in hex, int64 as a number or a
 * decimal string, bytes in base64); a protobuf export is brought into the same form.
 */
interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
  kvlistValue?: { values?: OtlpAttribute[] };
  bytesValue?: string;
}
interface OtlpAttribute {
  key: string;
  value?: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name?: string;
  kind?: number;
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
  links?: { traceId: string; spanId: string }[];
  attributes?: OtlpAttribute[];
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

/**
 * A trace collector for tests and the bench: `POST /v1/traces` on 127.0.0.1 as OTLP over HTTP
 * describes it (https://opentelemetry.io/docs/specs/otlp/#otlphttp). Exports in either encoding the
 * services send — binary protobuf (`http/protobuf`, the default) or JSON (`http/json`), gzipped or
 * not — are read into `spans`: protobuf with protobufjs on the specification's own message
 * definitions (otlp-trace-protos.ts). Every export is answered 200 with an empty response (a full
 * success), and kept as it came; they are read when `spans`, `trace` or `rejected` is first asked
 * for after them, so that a collector that only counts exports (the bench's tracing figure) spends
 * no CPU reading them beside the load it drives. One that cannot be read is listed in `rejected`.
 */
export class OtlpReceiver {
  /** Exports received, and their bytes as sent, whatever their encoding and whether readable or not. */
  exports = 0;
  bytes = 0;
  /** Exports received by media type (`application/x-protobuf`, `application/json`). */
  readonly contentTypes: Record<string, number> = {};
  private readonly unread: { contentType: string; contentEncoding: string; body: Buffer }[] = [];
  private readonly read: ReceivedSpan[] = [];
  private readonly unreadable: RejectedExport[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.method !== 'POST' || request.url !== '/v1/traces') {
          response.writeHead(404).end();
          return;
        }
        const body = Buffer.concat(chunks);
        receiver.exports += 1;
        receiver.bytes += body.length;
        const contentType = mediaTypeOf(request.headers['content-type']);
        receiver.contentTypes[contentType] = (receiver.contentTypes[contentType] ?? 0) + 1;
        receiver.unread.push({ contentType, contentEncoding: String(request.headers['content-encoding'] ?? ''), body });
        const json = contentType === 'application/json';
        response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : undefined);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** The spans of every export received so far, in the order they came. */
  get spans(): readonly ReceivedSpan[] {
    this.readExports();
    return this.read;
  }

  /** The exports that could not be read, and why. */
  get rejected(): readonly RejectedExport[] {
    this.readExports();
    return this.unreadable;
  }

  /** What `OTEL_EXPORTER_OTLP_ENDPOINT` names (the exporters add `/v1/traces`). */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  private readExports(): void {
    for (const { contentType, contentEncoding, body } of this.unread.splice(0)) {
      try {
        const payload = contentEncoding === 'gzip' ? gunzipSync(body) : body;
        const request = contentType === 'application/json' ? (JSON.parse(payload.toString('utf8')) as OtlpExport) : decodeProtobufExport(payload);
        this.read.push(...spansOf(request));
      } catch (error) {
        this.unreadable.push({ contentType, error: String(error) });
      }
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * A binary `ExportTraceServiceRequest` (what an `http/protobuf` exporter POSTs), decoded by
 * protobufjs into the OTLP/JSON form: field names in lowerCamelCase, int64 and fixed64 as decimal
 * strings, enums as numbers, bytes in base64, but the trace and span ids in hex as OTLP/JSON writes
 * them. A field at its default value may be absent. Throws on what is not such a message.
 */
function decodeProtobufExport(body: Uint8Array): OtlpExport {
  const type = exportRequestType();
  const request = type.toObject(type.decode(body), { longs: String, bytes: String }) as OtlpExport;
  const spans = (request.resourceSpans ?? []).flatMap((resourceSpans) => (resourceSpans.scopeSpans ?? []).flatMap((scope) => scope.spans ?? []));
  for (const span of spans) {
    span.traceId = hex(span.traceId);
    span.spanId = hex(span.spanId);
    span.parentSpanId = hex(span.parentSpanId ?? '');
    for (const link of span.links ?? []) {
      link.traceId = hex(link.traceId);
      link.spanId = hex(link.spanId);
    }
  }
  return request;
}

let requestType: Type | undefined;

/** opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest, parsed once. */
function exportRequestType(): Type {
  if (!requestType) {
    const root = new Root();
    for (const source of Object.values(OTLP_TRACE_PROTOS)) parse(source, root, { keepCase: false });
    root.resolveAll();
    requestType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
  }
  return requestType;
}

/** `application/json; charset=utf-8` → `application/json`. */
function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function hex(base64: string | undefined): string {
  return Buffer.from(base64 ?? '', 'base64').toString('hex');
}

/** The spans of an export in the OTLP/JSON form. */
function spansOf(body: OtlpExport): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(valueOf(resourceSpans.resource?.attributes?.find((attribute) => attribute.key === 'service.name')?.value) ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name ?? '',
        kind: span.kind ?? 0,
        startNs: BigInt(span.startTimeUnixNano ?? 0),
        endNs: BigInt(span.endTimeUnixNano ?? 0),
        links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
        attributes: attributesOf(span.attributes),
      })),
    );
  });
}

function attributesOf(attributes: OtlpAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map((attribute) => [attribute.key, valueOf(attribute.value)]));
}

function valueOf(value: OtlpValue | undefined): unknown {
  if (!value) return undefined;
  if (value.intValue !== undefined) {
    const int = BigInt(value.intValue);
    return int >= BigInt(Number.MIN_SAFE_INTEGER) && int <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(int) : int;
  }
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.kvlistValue) return attributesOf(value.kvlistValue.values);
  return value.stringValue ?? value.boolValue ?? value.doubleValue ?? value.bytesValue;
}
