import { loadConfig } from '@bedrequest/config';
import { USER_CLI, openUserAdministration } from './cli';
import { AuthCliConfig } from './config';

// Entry point of `npm run admin -- user ...` (tools/admin.mjs bundles and runs this file). The
// environment is read only for a command, so that --help works without one.
void USER_CLI.run(process.argv.slice(2), { open: () => openUserAdministration({ config: loadConfig(AuthCliConfig) }) }).then((code) => {
  process.exitCode = code;
});
