import type * as Api from '@opentelemetry/api';
import type * as ContextAsyncHooks from '@opentelemetry/context-async-hooks';
import type * as Core from '@opentelemetry/core';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as OtlpProto from '@opentelemetry/exporter-trace-otlp-proto';
import type * as Instrumentation from '@opentelemetry/instrumentation';
import type * as ExpressInstrumentationModule from '@opentelemetry/instrumentation-express';
import type * as HttpInstrumentationModule from '@opentelemetry/instrumentation-http';
import type * as IORedisInstrumentationModule from '@opentelemetry/instrumentation-ioredis';
import type * as PgInstrumentationModule from '@opentelemetry/instrumentation-pg';
import type * as UndiciInstrumentationModule from '@opentelemetry/instrumentation-undici';
import type * as Resources from '@opentelemetry/resources';
import type * as SdkTrace from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';

/**
 * OpenTelemetry tracing, configured only by the standard `OTEL_*` variables (docs/operations.md,
 * "Traces"). One deliberate deviation from the SDK: tracing is on only when `OTEL_TRACES_EXPORTER`
 * names an exporter. The SDK's default is `otlp`, which would have every service without a
 * collector export into the void, retrying and paying for spans nobody reads; here an unset
 * variable means no tracing at all: no SDK loaded (about 100 ms and 26 MiB per process), no hooks,
 * no spans. `OTEL_SDK_DISABLED=true` turns it off whatever else is set.
 *
 * The SDK is loaded only when tracing is on (hence `require` and type-only imports above).
 */

export type OtlpProtocol = 'http/protobuf' | 'http/json';
export type TracesExporterName = 'otlp' | 'console';

export interface TracingSettings {
  exporters: TracesExporterName[];
  /** OTLP over HTTP only: gRPC would bring its own HTTP/2 stack into every service. */
  protocol: OtlpProtocol;
}

export class TracingConfigurationError extends Error {
  override name = 'TracingConfigurationError';
}

const EXPORTERS: readonly string[] = ['otlp', 'console'] satisfies TracesExporterName[];
const PROTOCOLS: readonly string[] = ['http/protobuf', 'http/json'] satisfies OtlpProtocol[];

/** Whether and how to trace; undefined when off. Throws TracingConfigurationError for a value it cannot honour. */
export function tracingSettings(env: NodeJS.ProcessEnv = process.env): TracingSettings | undefined {
  if (text(env['OTEL_SDK_DISABLED']).toLowerCase() === 'true') return undefined;
  const names = list(env['OTEL_TRACES_EXPORTER']).map((name) => name.toLowerCase());
  if (names.length === 0 || names.includes('none')) return undefined;
  const unknown = names.filter((name) => !EXPORTERS.includes(name));
  if (unknown.length > 0) {
    throw new TracingConfigurationError(`OTEL_TRACES_EXPORTER: ${unknown.join(', ')} is not supported (otlp, console or none)`);
  }
  const protocol = text(env['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']) || text(env['OTEL_EXPORTER_OTLP_PROTOCOL']) || 'http/protobuf';
  if (!PROTOCOLS.includes(protocol)) {
    throw new TracingConfigurationError(`OTEL_EXPORTER_OTLP_PROTOCOL: ${protocol} is not supported (http/protobuf or http/json)`);
  }
  return { exporters: [...new Set(names)] as TracesExporterName[], protocol: protocol as OtlpProtocol };
}

/** Paths polled by probes and scrapers: a trace each would bury the requests. */
const UNTRACED_PATHS = /^\/(health\/|metrics$)/;

let instrumented = false;

/**
 * Registers the instrumentations' module hooks (http, express, undici, pg, ioredis) when tracing is
 * on. They patch a module when it is required, so this must run before anything requires express,
 * pg or ioredis: each service's bundle imports `@bedrequest/observability/instrument` first (its
 * `main.ts`), and esbuild keeps that order. Spans start once `startTracing` installed the provider.
 * An invalid setting is left for `startTracing` to report.
 */
export function instrumentForTracing(env: NodeJS.ProcessEnv = process.env): void {
  let settings: TracingSettings | undefined;
  try {
    settings = tracingSettings(env);
  } catch {
    return;
  }
  if (!settings || instrumented) return;
  instrumented = true;
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as typeof Instrumentation;
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof HttpInstrumentationModule;
  const { ExpressInstrumentation, ExpressLayerType } = require('@opentelemetry/instrumentation-express') as typeof ExpressInstrumentationModule;
  const { UndiciInstrumentation } = require('@opentelemetry/instrumentation-undici') as typeof UndiciInstrumentationModule;
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof PgInstrumentationModule;
  const { IORedisInstrumentation } = require('@opentelemetry/instrumentation-ioredis') as typeof IORedisInstrumentationModule;
  registerInstrumentations({
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.test(request.url ?? ''),
        // Outgoing calls outside a request (a health check, a token refresh) are no trace of their own.
        requireParentforOutgoingSpans: true,
      }),
      // Routers and handlers, not every middleware (helmet, body parsers, the access log). Without
      // the routers' spans the server span would not be named by its route (`POST /api/v2/fhir/Bundle`).
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
      // Statements outside a span are the relay's and the delivery worker's polls: no trace each.
      // Statement texts only, never their parameters (patient data).
      // Taking a pooled connection is no span of its own.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false, ignoreConnectSpans: true }),
      // The command's name only: keys name sessions and refresh tokens.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    ],
  });
}

export interface Tracing {
  /** Exports what is still buffered and stops; bounded, so that a collector that is down cannot hold up a shutdown. */
  shutdown(): Promise<void>;
}

/** At most this long for the last export when the service stops. */
const SHUTDOWN_BUDGET_MS = 2_000;

let started = false;

/**
 * Installs the tracer provider, W3C trace-context propagation and the async context of one service
 * process, if tracing is on (see tracingSettings), and returns it; undefined when off, or when the
 * process already traces (several services in one test process: the first one's name is on the
 * spans). `service.name` is `bedrequest-<service>` unless `OTEL_SERVICE_NAME` (or
 * `OTEL_RESOURCE_ATTRIBUTES`) says otherwise. The exporters read their own variables
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `..._HEADERS`,
 * `..._TIMEOUT`, `..._COMPRESSION`); the batch processor `OTEL_BSP_*`, the sampler
 * `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`, here.
 */
export function startTracing(service: string, logger: Logger, env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  const settings = tracingSettings(env);
  if (!settings || started) return undefined;
  started = true;
  instrumentForTracing(env);
  const api = require('@opentelemetry/api') as typeof Api;
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks') as typeof ContextAsyncHooks;
  const { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof Core;
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = require('@opentelemetry/resources') as typeof Resources;
  const sdk = require('@opentelemetry/sdk-trace') as typeof SdkTrace;

  const diagnostics = logger.child({ component: 'opentelemetry' });
  api.diag.setLogger(
    {
      error: (message) => diagnostics.warn(message),
      warn: (message) => diagnostics.warn(message),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    api.DiagLogLevel.WARN,
  );
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': `bedrequest-${service}` }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new sdk.TracerProvider({
    resource,
    sampler: samplerOf(sdk, env),
    spanProcessors: settings.exporters.map(
      (name) => new sdk.BatchSpanProcessor({ exporter: exporterOf(name, settings.protocol, sdk), ...batchOptionsOf(env) }),
    ),
  });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  api.trace.setGlobalTracerProvider(provider);
  logger.info({ exporters: settings.exporters, protocol: settings.protocol, serviceName: resource.attributes['service.name'] }, 'tracing on');
  return {
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const budget = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_BUDGET_MS)));
      await Promise.race([provider.shutdown().catch(() => undefined), budget]);
      clearTimeout(timer);
      api.trace.disable();
      api.propagation.disable();
      api.context.disable();
      api.diag.disable();
      started = false;
    },
  };
}

function exporterOf(name: TracesExporterName, protocol: OtlpProtocol, sdk: typeof SdkTrace): SdkTrace.SpanExporter {
  if (name === 'console') return new sdk.ConsoleSpanExporter();
  if (protocol === 'http/json') return new (require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp).OTLPTraceExporter();
  return new (require('@opentelemetry/exporter-trace-otlp-proto') as typeof OtlpProto).OTLPTraceExporter();
}

/** The batch span processor's standard variables (the SDK itself no longer reads them). */
function batchOptionsOf(env: NodeJS.ProcessEnv): Omit<SdkTrace.BatchSpanProcessorOptions, 'exporter'> {
  const options: Omit<SdkTrace.BatchSpanProcessorOptions, 'exporter'> = {};
  const set = (variable: string, key: 'scheduledDelayMillis' | 'exportTimeoutMillis' | 'maxQueueSize' | 'maxExportBatchSize') => {
    const value = Number(text(env[variable]) || Number.NaN);
    if (Number.isFinite(value) && value >= 0) options[key] = value;
  };
  set('OTEL_BSP_SCHEDULE_DELAY', 'scheduledDelayMillis');
  set('OTEL_BSP_EXPORT_TIMEOUT', 'exportTimeoutMillis');
  set('OTEL_BSP_MAX_QUEUE_SIZE', 'maxQueueSize');
  set('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 'maxExportBatchSize');
  return options;
}

/** `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`; the default is `parentbased_always_on`, as the specification's. */
function samplerOf(sdk: typeof SdkTrace, env: NodeJS.ProcessEnv): SdkTrace.Sampler {
  const name = text(env['OTEL_TRACES_SAMPLER']) || 'parentbased_always_on';
  const ratio = Number(text(env['OTEL_TRACES_SAMPLER_ARG']) || 1);
  const root = (kind: string): SdkTrace.Sampler => {
    if (kind === 'always_on') return new sdk.AlwaysOnSampler();
    if (kind === 'always_off') return new sdk.AlwaysOffSampler();
    if (kind === 'traceidratio') return new sdk.TraceIdRatioBasedSampler(Number.isFinite(ratio) ? ratio : 1);
    throw new TracingConfigurationError(`OTEL_TRACES_SAMPLER: ${name} is not supported`);
  };
  return name.startsWith('parentbased_') ? new sdk.ParentBasedSampler({ root: root(name.slice('parentbased_'.length)) }) : root(name);
}

function text(value: string | undefined): string {
  return (value ?? '').trim();
}

function list(value: string | undefined): string[] {
  return text(value)
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}
