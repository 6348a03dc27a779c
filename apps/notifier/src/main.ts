import { loadConfig } from '@bedrequest/config';
import { NotifierConfig } from './config';
import { startNotifier } from './start';

async function main(): Promise<void> {
  const service = await startNotifier(loadConfig(NotifierConfig));
  const shutdown = () => void service.stop().then(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  console.error(`notifier: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
