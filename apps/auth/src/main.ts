import { loadConfig } from '@bedrequest/config';
import { AuthConfig } from './config';
import { startAuth } from './start';

async function main(): Promise<void> {
  const service = await startAuth(loadConfig(AuthConfig));
  const shutdown = () => void service.stop().then(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  console.error(`auth: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
