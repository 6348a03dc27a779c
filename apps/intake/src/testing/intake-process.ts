// A real intake process for the bench's measure of what sealing costs (bench/src/figure-intake-encryption.ts).
// Configured by the environment like main.ts; INTAKE_TEST_STORE_IN_CLEAR=true stores bundles, their
// summaries, documents, notes and verdicts as their plain JSON bytes in the sealed columns: the same
// statements and columns, without the cryptography. The migrations are found beside the bundle, as
// in dist (the bench copies them there).
import { loadConfig } from '@bedrequest/config';
import { IntakeConfig } from '../config';
import { startIntake } from '../start';
import { ClearFields } from './clear-fields';

async function main(): Promise<void> {
  const service = await startIntake(
    loadConfig(IntakeConfig),
    process.env.INTAKE_TEST_STORE_IN_CLEAR === 'true' ? { fields: (keyring) => new ClearFields(keyring) } : {},
  );
  process.once('SIGTERM', () => void service.stop().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  console.error(`intake test process: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
