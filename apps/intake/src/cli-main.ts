import { loadConfig } from '@bedrequest/config';
import { INTAKE_CLIS, openIntakeKeys, openIntakeServices } from './cli';
import { IntakeCliConfig } from './config';

// Entry point of `npm run admin -- audit ...`, `request ...` and `intake ...` (tools/admin.mjs
// bundles and runs this file). The environment is read only for a command, so that --help works
// without one.
const argv = process.argv.slice(2);
const run =
  argv[0] === 'intake'
    ? INTAKE_CLIS.intake.run(argv, { open: () => openIntakeKeys(loadConfig(IntakeCliConfig)) })
    : (argv[0] === 'request' ? INTAKE_CLIS.request : INTAKE_CLIS.audit).run(argv, { open: () => openIntakeServices(loadConfig(IntakeCliConfig)) });
void run.then((code) => {
  process.exitCode = code;
});
