// One bundle as one trace (docs/operations.md, "Traces"; docs/architecture.md, "Traces"): the
// services as processes from dist, each exporting its spans over OTLP/HTTP to a collector in this
// test, and a request whose answer goes the longest way: gateway → intake → (outbox) routing, which
// answers from its bed counts → (outbox) intake → (outbox) notifier → the webhook. Once in the
// services' default encoding, binary protobuf (no protocol set, as in production), and once in JSON
// (`http/json`); the collector reads both (OtlpReceiver) and the same assertions hold for each.
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { OtlpReceiver, waitFor, WebhookReceiver, type ReceivedSpan } from '@bedrequest/testing';
import { buildServices } from '@bedrequest/stack';
import { clinicDay } from './clinic-day';
import { startE2eStack, type E2eStack } from './e2e-stack';

const CLINIC = '510000301';
/** A day to come: counts are published for today or later (docs/api.md, "Bed counts"). */
const DATE = clinicDay(30);
const SERVICES = ['gateway', 'intake', 'routing', 'notifier'].map((service) => `bedrequest-${service}`);

// An empty variable is an unset one (tracingSettings; the OpenTelemetry specification's rule too): the
// default case sets both to '' so that a value in the developer's environment cannot choose for it.
describe.each([
  { protocol: 'http/protobuf', set: '', contentType: 'application/x-protobuf' },
  { protocol: 'http/json', set: 'http/json', contentType: 'application/json' },
])('one bundle, one trace from the POST to the webhook, exported in $protocol', ({ set, contentType }) => {
  let collector: OtlpReceiver;
  let webhooks: WebhookReceiver;
  let stack: E2eStack;
  let referrer: string;

  beforeAll(async () => {
    buildServices();
    collector = await OtlpReceiver.start();
    webhooks = new WebhookReceiver();
    await webhooks.start();
    stack = await startE2eStack(
      {
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: set,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: '',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
        // Spans within a fifth of a second instead of the default five.
        OTEL_BSP_SCHEDULE_DELAY: '200',
        // An export that a busy machine slows past the default 10 s would be dropped with its spans.
        OTEL_EXPORTER_OTLP_TIMEOUT: '60000',
        LOG_LEVEL: 'info',
      },
      'processes',
      'capture',
    );
    await stack.registerClinic(CLINIC, 'Rehazentrum Spurweg', ['2300']);
    await stack.createReferrer('tracing-hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createClinicUser('spurweg', CLINIC);
    referrer = await stack.login('tracing-hospital');
    const clinic = await stack.login('spurweg');
    expect((await stack.api('PUT', '/api/v1/clinic/capacity', { token: clinic, body: { department: '2300', date: DATE, freeBeds: 3 } })).status).toBe(200);
    expect((await stack.api('PUT', '/api/v1/clinic/capacity/auto-answer', { token: clinic, body: { enabled: true } })).status).toBe(200);
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
    await webhooks?.stop();
    await collector?.stop();
  });

  it('follows the request through gateway, intake, routing and the notifier to the webhook delivery', async () => {
    const subscription = await stack.api<{ secret: string }>('POST', '/api/v1/subscriptions', {
      token: referrer,
      body: { eventType: 'AdmissionResponse', callbackUrl: webhooks.url },
    });
    webhooks.secret = subscription.body.secret;
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    const sent = await stack.api('POST', '/api/v2/fhir/Bundle', {
      token: referrer,
      body: admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC], occurrenceDate: DATE }),
    });
    expect(sent.status).toBe(202);

    // The webhook carries the trace on: its traceparent names the trace to look for.
    const webhook = await waitFor(() => webhooks.received.find((received) => received.verified && JSON.stringify(received.body.data).includes('accepted')), {
      timeoutMs: 30_000,
      what: 'the accepted webhook',
    });
    const [, traceId] = /^00-([0-9a-f]{32})-[0-9a-f]{16}-0[01]$/.exec(String(webhook.headers.traceparent)) ?? [];
    expect(traceId).toBeDefined();

    // Its ancestry, from the webhook delivery span up to the root: once every span of it arrived.
    const chain = await waitFor(() => ancestry(collector.trace(traceId!)), { timeoutMs: 60_000, what: "the webhook delivery span's whole ancestry" });
    const delivery = chain[0]!;
    expect([delivery.service, delivery.name]).toEqual(['bedrequest-notifier', 'webhook delivery']);
    const root = chain.at(-1)!;
    // The instrumentations hook into the bundles: the gateway's route (http, express), the webhook's
    // POST (undici, which carried the trace on), intake's statements (pg).
    expect([root.service, root.kind, root.name]).toEqual(['bedrequest-gateway', SPAN_KIND_SERVER, 'POST /api/v2/fhir/Bundle']);
    const spans = collector.trace(traceId!);
    expect(spans.find((span) => span.parentSpanId === delivery.spanId)?.name).toBe('POST');
    expect(spans.some((span) => span.service === 'bedrequest-intake' && span.name.startsWith('pg.query'))).toBe(true);
    // The services the request passed through, in order, each hop a message (or two, across an outbox).
    expect(servicesAlong(chain.toReversed())).toEqual([
      'bedrequest-gateway',
      'bedrequest-intake',
      'bedrequest-routing',
      'bedrequest-intake',
      'bedrequest-notifier',
    ]);
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(SERVICES));

    // A message handled in a batch: its own span is in the trace, and the batch's write links to it.
    const consumed = chain.filter((span) => span.name.startsWith('process '));
    expect(consumed.length).toBeGreaterThanOrEqual(4);
    const batches = collector.spans.filter((span) => span.name.startsWith('process batch '));
    for (const batch of batches) expect(batch.links.length).toBe(batch.attributes['messaging.batch.message_count']);

    // Every export came in the encoding asked for (the default: protobuf), and each was read.
    expect(Object.keys(collector.contentTypes)).toEqual([contentType]);
    expect(collector.rejected).toEqual([]);

    // Log lines written inside the trace's spans carry its id.
    const logged = (name: string) =>
      stack.stack
        .instance(name)
        .output()
        .split('\n')
        .filter((line) => line.includes(`"trace_id":"${traceId}"`));
    await waitFor(() => logged('intake').length > 0 && logged('notifier').length > 0, { timeoutMs: 5_000, what: 'log lines with the trace id' });
  });
});

/** OTLP's SpanKind: SPAN_KIND_SERVER. */
const SPAN_KIND_SERVER = 2;

/**
 * The webhook delivery span of the trace and its ancestors up to the root, nearest first; undefined
 * while one is missing (not exported yet, or in another trace: propagation broken).
 */
function ancestry(spans: ReceivedSpan[]): ReceivedSpan[] | undefined {
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  let span = spans.find((candidate) => candidate.name === 'webhook delivery');
  const chain: ReceivedSpan[] = [];
  while (span) {
    chain.push(span);
    if (span.parentSpanId === '') return chain;
    span = byId.get(span.parentSpanId);
  }
  return undefined;
}

/** The services of a chain of spans, each once per stay. */
function servicesAlong(chain: ReceivedSpan[]): string[] {
  return chain.map((span) => span.service).filter((service, index, all) => service !== all[index - 1]);
}
