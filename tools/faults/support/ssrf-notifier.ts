// The notifier as `dist/apps/notifier/main.cjs` runs it, with one test hook: host names resolve
// through a table the test controls (FAULTS_DNS_FILE, JSON: name → addresses, read at every
// lookup, so a name can be re-pointed while the notifier runs), never through real DNS. It goes
// through the address guard like every name does (startNotifier's `resolve` override). Bundled
// with bundleScript and started by the SSRF fault; NOTIFIER_TEST_MIGRATIONS_DIR says where the
// migrations are, since the bundle does not live beside them.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { loadConfig } from '@bedrequest/config';
import { NotifierConfig } from '../../../apps/notifier/src/config';
import type { Resolve } from '@bedrequest/http';
import { startNotifier } from '../../../apps/notifier/src/start';

const resolveFromTable: Resolve = async (hostname) => {
  const table = JSON.parse(readFileSync(process.env.FAULTS_DNS_FILE ?? '', 'utf8')) as Record<string, string[]>;
  const addresses = table[hostname.toLowerCase()];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: isIP(address) }));
};

async function main(): Promise<void> {
  const migrationsDir = process.env.NOTIFIER_TEST_MIGRATIONS_DIR;
  const service = await startNotifier(loadConfig(NotifierConfig), { resolve: resolveFromTable, ...(migrationsDir ? { migrationsDir } : {}) });
  const shutdown = () => void service.stop().then(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  console.error(`ssrf notifier: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
