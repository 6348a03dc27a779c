// First: tracing's module hooks must be in place before anything it instruments is required.
import '@bedrequest/observability/instrument';
import { loadConfig, postgresOf, redisOf } from '@bedrequest/config';
import { awaitInfrastructure } from '@bedrequest/observability';
import { AuthConfig } from './config';
import { startAuth } from './start';

async function main(): Promise<void> {
  const config = loadConfig(AuthConfig);
  // Started on its own, it gives up with one line if PostgreSQL or Redis stays out of reach.
  await awaitInfrastructure('auth', [postgresOf(config), redisOf(config)], { logLevel: config.LOG_LEVEL, giveUpAfterMs: config.STARTUP_TIMEOUT_MS });
  const service = await startAuth(config);
  const shutdown = () => void service.stop().then(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  for (const line of (error instanceof Error ? error.message : String(error)).split('\n')) console.error(`auth: ${line}`);
  process.exit(1);
});
