export { loadConfig, ConfigError } from './load-config';
export * as env from './env-schemas';
export { amqpEnv, baseServiceEnv, processEnv, type BaseServiceConfig } from './base-service';
export { dataKeyEnv, databaseEnv, jwksUrlOf, redisEnv, serviceClientEnv, tokenEnv } from './shared-env';
export { configSchema, requiredInProduction } from './production-rule';
export { addressOf, addressesOf, describeInfrastructure, postgresOf, rabbitMqOf, redisOf, startHintOf, type Infrastructure } from './infrastructure';
export {
  TlsSettingError,
  caOptionFor,
  checkTlsSettings,
  clientTlsOf,
  postgresUrlWithCa,
  readPemFile,
  serverCertificate,
  tlsEnv,
  trustedCa,
  type ClientTls,
  type TrustedCa,
} from './tls';
