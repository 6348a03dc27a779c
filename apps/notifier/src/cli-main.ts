import { loadConfig } from '@bedrequest/config';
import { NOTIFIER_CLI, openNotifierKeys } from './cli';
import { NotifierCliConfig } from './config';
import { receiverCli } from './receiver-check.cli';

// Entry point of `npm run admin -- notifier ...` and `receiver ...` (tools/admin.mjs bundles and runs
// this file). The environment is read only for a command, so that --help works without one;
// `receiver check` needs none of the notifier's (no database), only its own WEBHOOK_SECRET.
const argv = process.argv.slice(2);
const run =
  argv[0] === 'receiver'
    ? receiverCli({ WEBHOOK_SECRET: process.env.WEBHOOK_SECRET }).run(argv, { open: () => Promise.reject(new Error('receiver commands open no session')) })
    : NOTIFIER_CLI.run(argv, { open: () => openNotifierKeys(loadConfig(NotifierCliConfig)) });
void run.then((code) => {
  process.exitCode = code;
});
