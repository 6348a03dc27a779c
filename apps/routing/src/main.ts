// First: tracing's module hooks must be in place before anything it instruments is required.
import '@bedrequest/observability/instrument';
import { loadConfig, postgresOf, rabbitMqOf } from '@bedrequest/config';
import { awaitInfrastructure } from '@bedrequest/observability';
import { RoutingConfig } from './config';
import { startRouting } from './start';

async function main(): Promise<void> {
  const config = loadConfig(RoutingConfig);
  // Started on its own, it gives up with one line if PostgreSQL or RabbitMQ stays out of reach.
  await awaitInfrastructure('routing', [postgresOf(config), rabbitMqOf(config)], { logLevel: config.LOG_LEVEL, giveUpAfterMs: config.STARTUP_TIMEOUT_MS });
  const service = await startRouting(config);
  const shutdown = () => void service.stop().then(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  for (const line of (error instanceof Error ? error.message : String(error)).split('\n')) console.error(`routing: ${line}`);
  process.exit(1);
});
