import { CommandLine, command, option, type CommandContext, type Session } from '@bedrequest/cli';
import { SqlKeyStore, describeKeys, reencryptColumn, rewrapDataKeys, type DataKeyring } from '@bedrequest/crypto';
import { describeDatabase, openPlainSql } from '@bedrequest/persistence';
import type { NotifierCliConfig } from './config';
import { openNotifierDatabase } from './persistence/database';
import { openSealedFields, sealedColumnsOf } from './persistence/sealed-fields';

interface NotifierKeys {
  keyring: DataKeyring;
  store: SqlKeyStore;
  columns: ReturnType<typeof sealedColumnsOf>;
}

type Context = CommandContext<NotifierKeys>;

/**
 * `npm run admin -- notifier ...` (docs/data-protection.md, "Key rotation"): the notifier's data
 * keys, and the re-encryption of what older keys sealed, in the notifier schema of the running
 * stack's database with the stack's key-encryption keys (DATA_KEK, DATA_PREVIOUS_KEKS). The
 * service keeps running meanwhile.
 */
export const NOTIFIER_CLI = new CommandLine<NotifierKeys>({
  program: 'npm run admin --',
  group: 'notifier',
  summary: "The notifier's keys for data at rest. Reads DATABASE_URL, NOTIFIER_DB_SCHEMA, DATA_KEK, DATA_KEK_ID and DATA_PREVIOUS_KEKS from the environment.",
  commands: {
    keys: command({
      summary: 'lists the key-encryption keys, the data keys with the KEK wrapping each and the rows each sealed, and the rows still in clear',
      options: {},
      async run(_, { services, out }: Context) {
        const { keyring, store, columns } = await services();
        for (const line of await describeKeys(keyring, store, columns)) out(line);
      },
    }),
    'new-data-key': command({
      summary: 'makes a new data key under DATA_KEK; running notifiers seal with it within a minute (then run reencrypt)',
      options: {},
      async run(_, { services, out }: Context) {
        const { keyring } = await services();
        out(`data key ${await keyring.createDataKey()} made under ${keyring.keks.current.id}; new values are sealed with it within a minute`);
      },
    }),
    reencrypt: command({
      summary: 're-wraps every data key under DATA_KEK, then seals every value in clear or under an older data key anew, in batches',
      options: { 'batch-size': option.integer('<n>', { min: 1, max: 10_000 }).default(500) },
      async run(values, { services, out }: Context) {
        const { keyring, store, columns } = await services();
        const wrapping = await rewrapDataKeys(keyring, store, out);
        out(`data keys: ${wrapping.rewrapped} re-wrapped under ${keyring.keks.current.id}${wrapping.unavailable ? `, ${wrapping.unavailable} wrapped by a KEK not configured (left as they are)` : ''}`);
        for (const column of columns) {
          const { reencrypted, skipped } = await reencryptColumn(column, keyring, { batchSize: values['batch-size'], progress: out });
          out(`${column.name}: done, ${reencrypted} re-encrypted${skipped ? `, ${skipped} changed meanwhile and left as the service wrote them` : ''}`);
        }
      },
    }),
  },
});

/** The notifier schema (migrated first) and its keyring, with the KEKs of `config`. */
export async function openNotifierKeys(config: NotifierCliConfig): Promise<Session<NotifierKeys>> {
  const prisma = await openNotifierDatabase({ databaseUrl: config.DATABASE_URL, schema: config.NOTIFIER_DB_SCHEMA, poolSize: 2 }).catch((error: unknown) => {
    throw new Error(`cannot open the database at ${describeDatabase(config.DATABASE_URL)}: ${error instanceof Error ? error.message : String(error)}`);
  });
  try {
    const { fields } = await openSealedFields(config, prisma);
    // The key table and the re-encryption through plain pg (see openPlainSql: arrays of bytea values).
    const sql = openPlainSql(config.DATABASE_URL);
    const services = { keyring: fields.keyring, store: new SqlKeyStore(sql, config.NOTIFIER_DB_SCHEMA), columns: sealedColumnsOf(sql, config.NOTIFIER_DB_SCHEMA) };
    return {
      services,
      close: async () => {
        await sql.end();
        await prisma.$disconnect();
      },
    };
  } catch (error) {
    await prisma.$disconnect();
    throw error;
  }
}

