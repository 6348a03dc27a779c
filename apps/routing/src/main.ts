import { loadConfig } from '@bedrequest/config';
import { RoutingConfig } from './config';
import { startRouting } from './start';

async function main(): Promise<void> {
  const service = await startRouting(loadConfig(RoutingConfig));
  const shutdown = () => void service.stop().then(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  console.error(`routing: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
