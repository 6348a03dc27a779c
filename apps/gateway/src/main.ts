import { loadConfig } from '@bedrequest/config';
import { GatewayConfig } from './config';
import { startGateway } from './start';

async function main(): Promise<void> {
  const service = await startGateway(loadConfig(GatewayConfig));
  const shutdown = () => void service.stop().then(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  console.error(`gateway: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
