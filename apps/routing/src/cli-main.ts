import { loadConfig } from '@bedrequest/config';
import { CLINIC_CLI, openRoutingServices } from './cli';
import { RoutingCliConfig } from './config';

// Entry point of `npm run admin -- clinic ...` (tools/admin.mjs bundles and runs this file). The
// environment is read only for a command, so that --help works without one.
void CLINIC_CLI.run(process.argv.slice(2), { open: () => openRoutingServices(loadConfig(RoutingCliConfig)) }).then((code) => {
  process.exitCode = code;
});
