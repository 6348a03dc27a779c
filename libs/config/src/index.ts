export { loadConfig, ConfigError } from './load-config';
export * as env from './env-schemas';
export { baseServiceEnv, type BaseServiceConfig } from './base-service';
export { dataKeyEnv, databaseEnv, jwksUrlOf, requireDataKekInProduction, serviceClientEnv, tokenEnv } from './shared-env';
export { addressOf, describeInfrastructure, postgresOf, rabbitMqOf, redisOf, startHintOf, type Infrastructure } from './infrastructure';
