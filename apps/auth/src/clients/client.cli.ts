import { readFile } from 'node:fs/promises';
import { CommandLine, UsageError, command, option, type CommandContext } from '@bedrequest/cli';
import type { AuthAdministration } from '../cli';
import type { SystemClient } from './client';

type Context = CommandContext<AuthAdministration>;

/**
 * `npm run admin -- client ...` (docs/parties.md, "System clients and scopes"): a party's system
 * clients, which get access tokens at POST /api/v1/token/oauth2 with a JWT signed by one of their
 * keys (SMART Backend Services).
 */
export const CLIENT_CLI = new CommandLine<AuthAdministration>({
  program: 'npm run admin --',
  group: 'client',
  summary:
    'System clients of parties: OAuth 2.0 client credentials with a signed JWT (auth). Reads DATABASE_URL, AUTH_DB_SCHEMA and CLIENT_JWKS_ALLOW_PRIVATE from the environment.',
  commands: {
    create: command({
      summary:
        "registers a client of a party and prints its id: its public keys as a JWKS file or the https URL they are fetched from (RSA of at least 2048 bits or EC P-384, each with a kid), and the scopes it may be granted (default: every scope of the party's role)",
      options: {
        party: option.string('<party id>'),
        name: option.string('<name>'),
        'jwks-url': option.string('<https url>').optional(),
        'jwks-file': option.string('<file>').optional(),
        scope: option.string('"<scope> <scope> ..."').optional(),
      },
      async run(values, { services, out }: Context) {
        const jwksUrl = values['jwks-url'];
        const jwksFile = values['jwks-file'];
        if ((jwksUrl === undefined) === (jwksFile === undefined)) throw new UsageError('give the public keys with --jwks-url or with --jwks-file, one of them');
        const jwks = jwksFile === undefined ? undefined : await readJwksFile(jwksFile);
        const { clients } = await services();
        const { client, party } = await clients.create({ partyId: values.party, name: values.name, jwksUrl, jwks, scope: values.scope });
        out(client.id);
        out(`registered ${describe(client)} for ${party.role} party ${party.id} "${party.name}"`);
      },
    }),
    list: command({
      summary: 'lists the clients (of one party with --party), their keys and scopes',
      options: { party: option.string('<party id>').optional() },
      async run({ party }, { services, out }: Context) {
        const { clients } = await services();
        for (const client of await clients.list(party)) out(`${describe(client)}, party ${client.partyId}`);
      },
    }),
    disable: command({
      summary: 'disables a client: it gets no more tokens, and those it holds are revoked',
      options: { id: option.string('<client id>') },
      async run({ id }, { services, out }: Context) {
        const { clients } = await services();
        const result = await clients.disable(id);
        if (result === 'unknown') throw new Error(`no client with id ${id}`);
        out(result === 'disabled' ? `disabled client ${id}` : `client ${id} was already disabled`);
      },
    }),
  },
});

async function readJwksFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read --jwks-file ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`--jwks-file ${file} is not JSON`);
  }
}

/** One line per client: never more of its keys than their ids. */
function describe(client: SystemClient): string {
  const keys = 'jwks' in client.keys ? `jwks kid ${client.keys.jwks.keys.map((key) => key.kid).join(',')}` : `jwks-url ${client.keys.jwksUrl}`;
  const scopes = client.scopes ? `scope "${client.scopes.join(' ')}"` : "every scope of the party's role";
  const status = client.disabledAt ? `disabled since ${client.disabledAt.toISOString()}` : 'active';
  return `client ${client.id} "${client.name}" ${keys}, ${scopes}, ${status}`;
}
