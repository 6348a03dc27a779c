// First: tracing's module hooks must be in place before anything it instruments is required.
import '@bedrequest/observability/instrument';
import { loadConfig, rabbitMqOf } from '@bedrequest/config';
import { awaitInfrastructure } from '@bedrequest/observability';
import { GatewayConfig } from './config';
import { startGateway } from './start';

async function main(): Promise<void> {
  const config = loadConfig(GatewayConfig);
  // Started on its own, it gives up with one line if RabbitMQ stays out of reach.
  await awaitInfrastructure('gateway', [rabbitMqOf(config)], { logLevel: config.LOG_LEVEL, giveUpAfterMs: config.STARTUP_TIMEOUT_MS });
  const service = await startGateway(config);
  const shutdown = () => void service.stop().then(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  for (const line of (error instanceof Error ? error.message : String(error)).split('\n')) console.error(`gateway: ${line}`);
  process.exit(1);
});
