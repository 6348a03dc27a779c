export { testEnvironment, uniqueName } from './environment';
export { waitFor } from './wait-for';
export { captureLogger, silentLogger, type CapturedLogger } from './loggers';
export { TcpProxy } from './tcp-proxy';
export { deleteBrokerTopology } from './broker';
export { compareSchemaWithMigrations } from './schema-drift';
export { bundleScript } from './bundle-script';
export { freePort } from './free-port';
export { serveClinicRegistry } from './clinic-registry-stub';
