import { gzipSync } from 'node:zlib';
import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { OtlpReceiver, type ReceivedSpan } from './otlp-receiver';

const PROTOBUF = 'application/x-protobuf';
const JSON_TYPE = 'application/json';

/**
 * Spans the SDK recorded, serialized as the services' exporters serialize them (the exporters'
 * own serializers: @opentelemetry/exporter-trace-otlp-proto's ProtobufTraceSerializer,
 * exporter-trace-otlp-http's JsonTraceSerializer, of the same otlp-transformer version) and POSTed
 * with the exporters' content types, plain and gzipped; what the receiver reads is compared with the
 * SDK's own spans. (The exporters themselves cannot send from a test: their transport loads
 * `node:http` with a dynamic import(), which Jest's module sandbox refuses. The trace test in
 * tools/e2e runs them for real.)
 */
describe('OtlpReceiver', () => {
  let spans: ReadableSpan[];
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    const recorded = new InMemorySpanExporter();
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'bedrequest-receiver-test' }),
      spanProcessors: [new SimpleSpanProcessor({ exporter: recorded })],
    });
    const tracer = provider.getTracer('otlp-receiver-spec');
    const root = tracer.startSpan('POST /api/v2/fhir/Bundle', {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': 'POST',
        'http.response.status_code': 202,
        'http.route': '',
        retried: false,
        attempts: 0,
        ratio: 0.25,
        'big.int': 2 ** 40,
        'negative.int': -7,
        'list.strings': ['a', 'b'],
        'list.numbers': [1, 2.5],
      },
    });
    const elsewhere = [tracer.startSpan('publish a'), tracer.startSpan('publish b')];
    for (const span of elsewhere) span.end();
    const batch = tracer.startSpan(
      'process batch bedrequest.intake',
      {
        kind: SpanKind.CONSUMER,
        links: elsewhere.map((span) => ({ context: span.spanContext(), attributes: { ignored: true } })),
        attributes: { 'messaging.batch.message_count': 2 },
      },
      trace.setSpan(ROOT_CONTEXT, root),
    );
    batch.addEvent('written', { rows: 2 });
    batch.end();
    root.end();
    await provider.forceFlush();
    spans = recorded.getFinishedSpans();
    expect(spans).toHaveLength(4);
  });

  beforeEach(async () => {
    receiver = await OtlpReceiver.start();
  });
  afterEach(async () => {
    await receiver.stop();
  });

  /** The SDK's spans, as the receiver should read them from either encoding. */
  const expected = (): ReceivedSpan[] =>
    spans.map((span) => ({
      service: 'bedrequest-receiver-test',
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
      parentSpanId: span.parentSpanContext?.spanId ?? '',
      name: span.name,
      // OTLP's SpanKind is the API's plus one (0 is SPAN_KIND_UNSPECIFIED).
      kind: span.kind + 1,
      startNs: BigInt(span.startTime[0]) * 1_000_000_000n + BigInt(span.startTime[1]),
      endNs: BigInt(span.endTime[0]) * 1_000_000_000n + BigInt(span.endTime[1]),
      links: span.links.map((link) => ({ traceId: link.context.traceId, spanId: link.context.spanId })),
      attributes: { ...span.attributes },
    }));

  /** One export of the SDK's spans, as its exporter would send it. */
  const post = (contentType: string, body: Uint8Array | string, headers: Record<string, string> = {}) =>
    fetch(`${receiver.endpoint}/v1/traces`, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body });
  const serialized = (contentType: string) => (contentType === PROTOBUF ? ProtobufTraceSerializer : JsonTraceSerializer).serializeRequest(spans)!;

  it.each([
    [PROTOBUF, 'plain'],
    [PROTOBUF, 'gzip'],
    [JSON_TYPE, 'plain'],
    [JSON_TYPE, 'gzip'],
  ] as const)('reads an export in %s (%s) into the SDK’s spans', async (contentType, compression) => {
    const body = serialized(contentType);
    const sent = await post(contentType, compression === 'gzip' ? gzipSync(body) : body, compression === 'gzip' ? { 'content-encoding': 'gzip' } : {});
    expect(sent.status).toBe(200);
    expect(sent.headers.get('content-type')).toBe(contentType);
    expect(receiver.rejected).toEqual([]);
    expect(receiver.contentTypes).toEqual({ [contentType]: 1 });
    expect(receiver.exports).toBe(1);
    expect(receiver.spans).toEqual(expected());
    // What the trace test relies on, spelled out: the ancestry, ids in hex, a batch's links.
    const [, , batch, root] = receiver.spans;
    expect(batch!.parentSpanId).toBe(root!.spanId);
    expect(root!.parentSpanId).toBe('');
    expect(root!.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(batch!.links.length).toBe(batch!.attributes['messaging.batch.message_count']);
  });

  it('reads the same spans from both encodings, and counts each export and its bytes as sent', async () => {
    const protobuf = serialized(PROTOBUF);
    const json = serialized(JSON_TYPE);
    expect((await post(PROTOBUF, protobuf)).status).toBe(200);
    expect((await post(JSON_TYPE, json)).status).toBe(200);
    expect(receiver.contentTypes).toEqual({ [PROTOBUF]: 1, [JSON_TYPE]: 1 });
    expect([receiver.exports, receiver.bytes]).toEqual([2, protobuf.length + json.length]);
    expect(receiver.spans.slice(0, spans.length)).toEqual(receiver.spans.slice(spans.length));
  });

  it('lists an export it cannot read, counts it, and reads the others', async () => {
    // Field 1 (resource_spans) as a length-delimited message 16 bytes long, with 1 byte after it.
    expect((await post(PROTOBUF, Uint8Array.of(0x0a, 0x10, 0x01))).status).toBe(200);
    expect((await post(JSON_TYPE, '{"resourceSpans": [')).status).toBe(200);
    expect((await post(PROTOBUF, serialized(PROTOBUF))).status).toBe(200);
    expect(receiver.rejected.map((rejected) => rejected.contentType)).toEqual([PROTOBUF, JSON_TYPE]);
    expect(receiver.exports).toBe(3);
    expect(receiver.spans).toEqual(expected());
  });
});
