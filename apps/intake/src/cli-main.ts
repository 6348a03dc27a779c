import { loadConfig } from '@bedrequest/config';
import { INTAKE_CLIS, openIntakeKeys, openIntakeServices, openRecordServices } from './cli';
import { IntakeCliBrokerConfig, IntakeCliConfig } from './config';

// Entry point of `npm run admin -- audit ...`, `request ...`, `dead-letters ...`, `intake ...` and `record ...`
// (tools/admin.mjs bundles and runs this file). The environment is read only for a command, so that
// --help works without one; the broker's only for the commands that use it.
const argv = process.argv.slice(2);
const group = argv[0] === 'request' || argv[0] === 'dead-letters' ? argv[0] : 'audit';
// `record verify FILE`: the file as the one argument, as --file (the command lines take options only).
if (argv[0] === 'record' && argv[1] === 'verify' && argv.length === 3 && !argv[2]?.startsWith('-')) argv.splice(2, 0, '--file');
const run =
  argv[0] === 'intake'
    ? INTAKE_CLIS.intake.run(argv, { open: () => openIntakeKeys(loadConfig(IntakeCliConfig)) })
    : argv[0] === 'record'
      ? INTAKE_CLIS.record.run(argv, { open: () => openRecordServices(loadConfig(IntakeCliConfig)) })
      : INTAKE_CLIS[group].run(argv, {
          open: () => openIntakeServices(loadConfig(IntakeCliConfig), group === 'audit' ? undefined : loadConfig(IntakeCliBrokerConfig)),
        });
void run.then((code) => {
  process.exitCode = code;
});
