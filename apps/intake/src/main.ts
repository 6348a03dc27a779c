import { loadConfig } from '@bedrequest/config';
import { IntakeConfig } from './config';
import { startIntake } from './start';

async function main(): Promise<void> {
  const service = await startIntake(loadConfig(IntakeConfig));
  const shutdown = () => void service.stop().then(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  console.error(`intake: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
