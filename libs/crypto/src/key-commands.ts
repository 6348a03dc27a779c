import { command, option, type CommandContext } from '@bedrequest/cli';
import type { DataKeyring } from './data-keyring';
import type { SqlKeyStore } from './key-store';
import { describeFingerprintKey, describeKeys, type CountedColumn } from './key-status';
import { reencryptColumn, rewrapDataKeys, rewrapFingerprintKey, type SealedColumn } from './rotation';

/** What the key commands of a service work on: its keyring, its key table and its sealed columns. */
export interface ServiceDataKeys {
  keyring: DataKeyring;
  store: SqlKeyStore;
  columns: readonly (SealedColumn & CountedColumn)[];
  /**
   * The service has a fingerprint key (fingerprint.ts): the commands list it and re-wrap it with the
   * data keys; without it they leave the fingerprint key's table alone.
   */
  fingerprintKey?: boolean;
}

/**
 * The key commands every service that seals data at rest offers (`npm run admin -- <service> ...`,
 * docs/data-protection.md, "Key rotation"): `keys`, `new-data-key` and `reencrypt`. `service`
 * names the service in the help ("running intakes seal with it within a minute"). A service with a
 * fingerprint key has it listed and re-wrapped too; `new-data-key` never replaces it.
 */
export function dataKeyCommands(service: string) {
  type Context = CommandContext<ServiceDataKeys>;
  return {
    keys: command({
      summary:
        'lists the key-encryption keys, the data keys with the KEK wrapping each and the rows each sealed (and the fingerprint key with the KEK wrapping it)',
      options: {},
      async run(_, { services, out }: Context) {
        const { keyring, store, columns, fingerprintKey } = await services();
        for (const line of await describeKeys(keyring, store, [...columns])) out(line);
        if (fingerprintKey) out(await describeFingerprintKey(keyring, store));
      },
    }),
    'new-data-key': command({
      summary: `makes a new data key under DATA_KEK; running ${service}s seal with it within a minute (then run reencrypt)`,
      options: {},
      async run(_, { services, out }: Context) {
        const { keyring } = await services();
        out(`data key ${await keyring.createDataKey()} made under ${keyring.keks.current.id}; new values are sealed with it within a minute`);
      },
    }),
    reencrypt: command({
      summary: 're-wraps every data key (and the fingerprint key) under DATA_KEK, then seals every value an older data key sealed anew, in batches',
      options: { 'batch-size': option.integer('<n>', { min: 1, max: 10_000 }).default(500) },
      async run(values, { services, out }: Context) {
        const { keyring, store, columns, fingerprintKey } = await services();
        const wrapping = await rewrapDataKeys(keyring, store, out);
        out(
          `data keys: ${wrapping.rewrapped} re-wrapped under ${keyring.keks.current.id}${wrapping.unavailable ? `, ${wrapping.unavailable} wrapped by a KEK not configured (left as they are)` : ''}`,
        );
        if (fingerprintKey) await rewrapFingerprintKey(keyring, store, out);
        for (const column of columns) {
          const { reencrypted, skipped } = await reencryptColumn(column, keyring, { batchSize: values['batch-size'], progress: out });
          out(`${column.name}: done, ${reencrypted} re-encrypted${skipped ? `, ${skipped} changed meanwhile and left as the service wrote them` : ''}`);
        }
      },
    }),
  };
}
