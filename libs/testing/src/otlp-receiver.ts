import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as an OTLP/JSON export carries it, with the `service.name` of its resource. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  links: { traceId: string; spanId: string }[];
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpJsonExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        links?: { traceId: string; spanId: string }[];
        attributes?: OtlpAttribute[];
      }[];
    }[];
  }[];
}

/**
 * A trace collector for tests and the bench: `POST /v1/traces` on 127.0.0.1 as OTLP over HTTP
 * describes it (https://opentelemetry.io/docs/specs/otlp/#otlphttp). Exports in JSON
 * (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) are read into `spans`; protobuf ones are counted, not
 * read. Every export is answered 200 with an empty response (a full success).
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Exports received, and their bytes, whatever their encoding. */
  exports = 0;
  bytes = 0;

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
        const json = String(request.headers['content-type'] ?? '').startsWith('application/json');
        if (json) receiver.spans.push(...spansOf(JSON.parse(body.toString('utf8')) as OtlpJsonExport));
        response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : undefined);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** What `OTEL_EXPORTER_OTLP_ENDPOINT` names (the exporters add `/v1/traces`). */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function spansOf(body: OtlpJsonExport): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(valueOf(resourceSpans.resource?.attributes?.find((attribute) => attribute.key === 'service.name')?.value) ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        startNs: BigInt(span.startTimeUnixNano),
        endNs: BigInt(span.endTimeUnixNano),
        links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
        attributes: Object.fromEntries((span.attributes ?? []).map((attribute) => [attribute.key, valueOf(attribute.value)])),
      })),
    );
  });
}

function valueOf(value: OtlpValue | undefined): unknown {
  if (!value) return undefined;
  return value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
}
