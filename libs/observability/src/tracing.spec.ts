import { Writable } from 'node:stream';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { createLogger, withTrace } from './logger';
import { tracingSettings, TracingConfigurationError } from './tracing';

describe('tracingSettings', () => {
  it('is off without OTEL_TRACES_EXPORTER (unlike the SDK, whose default is otlp), with none, and with OTEL_SDK_DISABLED', () => {
    expect(tracingSettings({})).toBeUndefined();
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: '' })).toBeUndefined();
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
  });

  it('exports over OTLP/HTTP in protobuf by default, in JSON when asked, the traces variable first', () => {
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({ exporters: ['otlp'], protocol: 'http/protobuf' });
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp,console', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual({
      exporters: ['otlp', 'console'],
      protocol: 'http/json',
    });
    expect(
      tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })
        ?.protocol,
    ).toBe('http/protobuf');
  });

  it('refuses an exporter or protocol it cannot honour, naming the variable', () => {
    expect(() => tracingSettings({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(
      new TracingConfigurationError('OTEL_TRACES_EXPORTER: zipkin is not supported (otlp, console or none)'),
    );
    expect(() => tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL: grpc/);
  });
});

describe('log lines and traces', () => {
  const provider = new TracerProvider();
  const contextManager = new AsyncLocalStorageContextManager().enable();
  beforeAll(() => {
    context.setGlobalContextManager(contextManager);
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(() => {
    trace.disable();
    context.disable();
  });

  const capture = () => {
    const raw: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        raw.push(chunk.toString());
        done();
      },
    });
    const lines = () => raw.map((line) => JSON.parse(line) as Record<string, unknown>);
    return { raw, lines, logger: createLogger('test', 'info', stream) };
  };

  it('names the trace and span of the span a line is written in, and none outside', () => {
    const { lines: read, logger } = capture();
    const span = provider.getTracer('test').startSpan('work');
    context.with(trace.setSpan(context.active(), span), () => logger.info('inside'));
    logger.info('outside');
    span.end();
    const lines = read();
    expect(lines[0]).toMatchObject({ msg: 'inside', trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });
    expect(lines[1]).not.toHaveProperty('trace_id');
  });

  it("a message's logger names its message's trace once, even inside its batch's span", () => {
    const { raw, lines, logger } = capture();
    const tracer = provider.getTracer('test');
    const message = tracer.startSpan('process');
    const batch = tracer.startSpan('process batch');
    const messageLogger = withTrace(logger, { messageId: 'm-1' }, message.spanContext());
    context.with(trace.setSpan(context.active(), batch), () => messageLogger.child({ step: 1 }).info('stored'));
    expect(lines()[0]).toMatchObject({ messageId: 'm-1', step: 1, trace_id: message.spanContext().traceId });
    expect(raw[0]?.match(/"trace_id"/g)).toHaveLength(1);
  });
});
