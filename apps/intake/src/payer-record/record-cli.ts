import { readFile } from 'node:fs/promises';
import { CommandLine, command, option, type CommandContext } from '@bedrequest/cli';
import type { RecordSigningKeys } from './record-signing-keys';
import { verifyRecord } from './record-signature';

/** What the record commands work with (src/cli.ts opens them). */
export interface RecordCliServices {
  keys: RecordSigningKeys;
}

type Context = CommandContext<RecordCliServices>;

/**
 * `npm run admin -- record verify FILE` (docs/operations.md, "Record signing keys"): checks a
 * payer's record (PDF or CSV) against the service's public keys and says what was signed, when and
 * with which key, or why not (exit 1). `record keys` lists the keys; `record rotate-key` makes a new
 * one that signs from now on, the older ones still verifying.
 */
export const RECORD_CLI = new CommandLine<RecordCliServices>({
  program: 'npm run admin --',
  group: 'record',
  summary:
    "The payer's records and the keys that sign them (intake). Reads DATABASE_URL, INTAKE_DB_SCHEMA, DATA_KEK, DATA_KEK_ID and DATA_PREVIOUS_KEKS from the environment.",
  commands: {
    verify: command({
      summary:
        'checks the signature of a record (PDF or CSV, `record verify FILE` or --file FILE): says what was signed, when and with which key; exits 1 if it is not valid',
      options: { file: option.string('<file>') },
      async run({ file }, { services, out }: Context) {
        const content = await readFile(file);
        const { keys } = await services();
        const result = verifyRecord(content, await keys.publicKeys());
        if (!result.valid) throw new Error(`not valid (${result.reason}): ${result.message}`);
        out(`valid: the ${result.kind.toUpperCase()} record of the request ${result.request}, signed at ${result.signedAt} with the key ${result.kid}`);
        out(`sha256 of the signed content: ${result.sha256}`);
      },
    }),
    keys: command({
      summary: 'lists the record signing keys, newest (the one that signs) first, with when each was made',
      options: {},
      async run(_options, { services, out }: Context) {
        const { keys } = await services();
        const listed = await keys.list();
        if (listed.length === 0) out('no record signing key yet: the first record made makes one');
        listed.forEach((key, index) => out(`${key.kid} made ${key.createdAt.toISOString()}${index === 0 ? ' (signs)' : ''}`));
      },
    }),
    'rotate-key': command({
      summary: 'makes a new record signing key, which signs from now on; the older keys still verify the records they signed',
      options: {},
      async run(_options, { services, out }: Context) {
        const { keys } = await services();
        out(`new record signing key ${await keys.rotate(new Date())}; the older keys still verify`);
      },
    }),
  },
});
