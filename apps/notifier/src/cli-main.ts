import { loadConfig } from '@bedrequest/config';
import { NOTIFIER_CLI, openNotifierKeys } from './cli';
import { NotifierCliConfig } from './config';

// Entry point of `npm run admin -- notifier ...` (tools/admin.mjs bundles and runs this file). The
// environment is read only for a command, so that --help works without one.
void NOTIFIER_CLI.run(process.argv.slice(2), { open: () => openNotifierKeys(loadConfig(NotifierCliConfig)) }).then((code) => {
  process.exitCode = code;
});
