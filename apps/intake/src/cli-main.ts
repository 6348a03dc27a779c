import { loadConfig } from '@bedrequest/config';
import { INTAKE_CLIS, openIntakeServices } from './cli';
import { IntakeCliConfig } from './config';

// Entry point of `npm run admin -- audit ...` and `request ...` (tools/admin.mjs bundles and runs
// this file). The environment is read only for a command, so that --help works without one.
const argv = process.argv.slice(2);
const cli = argv[0] === 'request' ? INTAKE_CLIS.request : INTAKE_CLIS.audit;
void cli.run(argv, { open: () => openIntakeServices(loadConfig(IntakeCliConfig)) }).then((code) => {
  process.exitCode = code;
});
