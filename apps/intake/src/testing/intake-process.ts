// A real intake process for the bench's measure of what sealing costs (bench/src/figure-intake-encryption.ts).
// Configured by the environment like main.ts; INTAKE_TEST_STORE_IN_CLEAR=true stores bundles, their
// summaries, documents, notes and verdicts as their plain JSON bytes in the sealed columns: the same
// statements and columns, without the cryptography. The migrations are found beside the bundle, as
// in dist (the bench copies them there).
import { loadConfig } from '@bedrequest/config';
import { IntakeConfig } from '../config';
import { SealedFields, type StoredValue } from '../persistence/sealed-fields';
import { startIntake } from '../start';

/**
 * startIntake builds its SealedFields itself and takes no stand-in for them, so the unsealed
 * variant gives that class clear methods, in this process only. Never in a service.
 */
function storeInClear(): void {
  SealedFields.prototype.seal = (_context: string, value: unknown) => Buffer.from(JSON.stringify(value));
  SealedFields.prototype.open = async <T>(_context: string, stored: StoredValue): Promise<T> =>
    (stored.sealed ? JSON.parse(Buffer.from(stored.sealed).toString('utf8')) : stored.clear) as T;
}

async function main(): Promise<void> {
  if (process.env.INTAKE_TEST_STORE_IN_CLEAR === 'true') storeInClear();
  const service = await startIntake(loadConfig(IntakeConfig));
  process.once('SIGTERM', () => void service.stop().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  console.error(`intake test process: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
