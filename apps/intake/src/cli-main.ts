import { loadConfig } from '@bedrequest/config';
import { INTAKE_CLIS, openIntakeKeys, openIntakeServices } from './cli';
import { IntakeCliBrokerConfig, IntakeCliConfig } from './config';

// Entry point of `npm run admin -- audit ...`, `request ...`, `dead-letters ...` and `intake ...`
// (tools/admin.mjs bundles and runs this file). The environment is read only for a command, so that
// --help works without one; the broker's only for the commands that use it.
const argv = process.argv.slice(2);
const group = argv[0] === 'request' || argv[0] === 'dead-letters' ? argv[0] : 'audit';
const run =
  argv[0] === 'intake'
    ? INTAKE_CLIS.intake.run(argv, { open: () => openIntakeKeys(loadConfig(IntakeCliConfig)) })
    : INTAKE_CLIS[group].run(argv, {
        open: () => openIntakeServices(loadConfig(IntakeCliConfig), group === 'audit' ? undefined : loadConfig(IntakeCliBrokerConfig)),
      });
void run.then((code) => {
  process.exitCode = code;
});
