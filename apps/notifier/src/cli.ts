import { CommandLine, type Session } from '@bedrequest/cli';
import { SqlKeyStore, dataKeyCommands, type ServiceDataKeys } from '@bedrequest/crypto';
import { openPlainSqlSession } from '@bedrequest/persistence';
import type { NotifierCliConfig } from './config';
import { openNotifierDatabase } from './persistence/database';
import { openSealedFields, sealedColumnsOf } from './persistence/sealed-fields';

/**
 * `npm run admin -- notifier ...` (docs/data-protection.md, "Key rotation"): the notifier's data
 * keys, and the re-encryption of what older keys sealed, in the notifier schema of the running
 * stack's database with the stack's key-encryption keys (DATA_KEK, DATA_PREVIOUS_KEKS). The
 * service keeps running meanwhile.
 */
export const NOTIFIER_CLI = new CommandLine<ServiceDataKeys>({
  program: 'npm run admin --',
  group: 'notifier',
  summary: "The notifier's keys for data at rest. Reads DATABASE_URL, NOTIFIER_DB_SCHEMA, DATA_KEK, DATA_KEK_ID and DATA_PREVIOUS_KEKS from the environment.",
  commands: dataKeyCommands('notifier'),
});

/** The notifier schema (migrated first) and its keyring, with the KEKs of `config`. */
export function openNotifierKeys(config: NotifierCliConfig): Promise<Session<ServiceDataKeys>> {
  return openPlainSqlSession(
    config.DATABASE_URL,
    () => openNotifierDatabase({ databaseUrl: config.DATABASE_URL, schema: config.NOTIFIER_DB_SCHEMA, poolSize: 2 }),
    // The key table and the re-encryption through plain pg (see openPlainSql: arrays of bytea values).
    async (prisma, sql) => {
      const { fields } = await openSealedFields(config, prisma);
      return { keyring: fields.keyring, store: new SqlKeyStore(sql, config.NOTIFIER_DB_SCHEMA), columns: sealedColumnsOf(sql, config.NOTIFIER_DB_SCHEMA) };
    },
  );
}
