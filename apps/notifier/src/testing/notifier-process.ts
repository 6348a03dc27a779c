// A real notifier process for tests: started with bundleScript from @bedrequest/testing by tests that
// kill it (SIGKILL) or that reach the notifier from another app's tests, and by the bench. Configured
// by the environment like main.ts; NOTIFIER_TEST_MIGRATIONS_DIR says where the migrations are, since
// the bundle does not live beside them; NOTIFIER_TEST_STORE_IN_CLEAR=true stores secrets and Tasks
// unsealed (the bench's comparison, bench/src/figure-encryption.ts). Reports its addresses (the
// service's and the internal one of its probes and metrics) to the parent over the IPC channel, when
// there is one.
import { loadConfig } from '@bedrequest/config';
import { NotifierConfig } from '../config';
import { startNotifier } from '../start';
import { ClearFields } from './clear-fields';

async function main(): Promise<void> {
  const migrationsDir = process.env.NOTIFIER_TEST_MIGRATIONS_DIR;
  const service = await startNotifier(loadConfig(NotifierConfig), {
    ...(migrationsDir ? { migrationsDir } : {}),
    ...(process.env.NOTIFIER_TEST_STORE_IN_CLEAR === 'true' ? { protectedFields: new ClearFields() } : {}),
  });
  process.send?.({ url: service.url, internalUrl: service.internalUrl });
  process.once('SIGTERM', () => void service.stop().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  console.error(`notifier test process: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
