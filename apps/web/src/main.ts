// First: tracing's module hooks must be in place before anything it instruments is required.
import '@bedrequest/observability/instrument';
import { loadConfig, redisOf } from '@bedrequest/config';
import { awaitInfrastructure } from '@bedrequest/observability';
import { WebConfig } from './config';
import { startWeb } from './start';

async function main(): Promise<void> {
  const config = loadConfig(WebConfig);
  // Started on its own, it gives up with one line if Redis stays out of reach. The gateway may come
  // later: until it answers, the pages say the service is unavailable.
  await awaitInfrastructure('web', [redisOf(config)], { logLevel: config.LOG_LEVEL, giveUpAfterMs: config.STARTUP_TIMEOUT_MS });
  const service = await startWeb(config);
  const shutdown = () => void service.stop().then(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  for (const line of (error instanceof Error ? error.message : String(error)).split('\n')) console.error(`web: ${line}`);
  process.exit(1);
});
