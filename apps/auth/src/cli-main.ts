import { loadConfig } from '@bedrequest/config';
import { CLIENT_CLI } from './clients/client.cli';
import { USER_CLI, openUserAdministration } from './cli';
import { AuthCliConfig } from './config';
import { PARTY_CLI } from './parties/party.cli';

// Entry point of `npm run admin -- user ...`, `party ...` and `client ...` (tools/admin.mjs bundles and runs this
// file). The environment is read only for a command, so that --help works without one.
const argv = process.argv.slice(2);
const cli = argv[0] === 'party' ? PARTY_CLI : argv[0] === 'client' ? CLIENT_CLI : USER_CLI;
void cli.run(argv, { open: () => openUserAdministration({ config: loadConfig(AuthCliConfig) }) }).then((code) => {
  process.exitCode = code;
});
