export { createLogger, withTrace, type Logger } from './logger';
export { startTracing, tracingSettings, TracingConfigurationError, type Tracing, type TracingSettings } from './tracing';
export { createMetricsRegistry } from './metrics';
export { clientAddressOf, createServiceHttpApp, listen, probeRouter, type Readiness, type ServiceHttpOptions } from './http';
export { correlationIdFrom, CORRELATION_HEADER } from './correlation';
export { Lifecycle, closeServer } from './lifecycle';
export { serveHttp, startService, type ServiceContext, type Serving, type Started } from './service';
export { DependencyUnavailableError, waitForDependency, type Waiting, type WaitOptions } from './wait-for-dependency';
export { InfrastructureUnreachableError, awaitInfrastructure } from './infrastructure';
