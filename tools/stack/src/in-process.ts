// The services started inside the calling process, from their sources: for the integration tests,
// which start many stacks and look at no process ids. The only place outside the apps that starts
// them this way (eslint.config.mjs allows these imports here and nowhere else).
import { loadConfig } from '@bedrequest/config';
import { CLINIC_CLI, openRoutingServices } from '../../../apps/routing/src/cli';
import { RoutingCliConfig, RoutingConfig } from '../../../apps/routing/src/config';
import { startRouting } from '../../../apps/routing/src/start';
import { USER_CLI, openUserAdministration } from '../../../apps/auth/src/cli';
import { CLIENT_CLI } from '../../../apps/auth/src/clients/client.cli';
import { PARTY_CLI } from '../../../apps/auth/src/parties/party.cli';
import { AuthCliConfig, AuthConfig } from '../../../apps/auth/src/config';
import { startAuth } from '../../../apps/auth/src/start';
import { GatewayConfig } from '../../../apps/gateway/src/config';
import { startGateway } from '../../../apps/gateway/src/start';
import { IntakeConfig } from '../../../apps/intake/src/config';
import { startIntake } from '../../../apps/intake/src/start';
import { NotifierConfig } from '../../../apps/notifier/src/config';
import { startNotifier } from '../../../apps/notifier/src/start';
import { WebConfig } from '../../../apps/web/src/config';
import { startWeb } from '../../../apps/web/src/start';
import type { InProcessRunner, InProcessService } from './stack-types';
import type { ServiceName } from './services';

/** The runner of in-process stacks (launchStack). */
export const inProcessRunner: InProcessRunner = { start: startInProcess, admin: adminInProcess };

/** Starts `service` with `env` as its whole environment; resolves once it is ready. */
async function startInProcess(service: ServiceName, env: Record<string, string>): Promise<InProcessService> {
  switch (service) {
    case 'auth': {
      const running = await startAuth(loadConfig(AuthConfig, env));
      return { url: running.url, probeUrl: running.internalUrl, stop: () => running.stop() };
    }
    case 'routing': {
      const running = await startRouting(loadConfig(RoutingConfig, env));
      return { url: running.url, probeUrl: running.internalUrl, stop: () => running.stop() };
    }
    case 'intake': {
      const running = await startIntake(loadConfig(IntakeConfig, env));
      return { url: running.url, probeUrl: running.internalUrl, stop: () => running.stop() };
    }
    case 'notifier': {
      const running = await startNotifier(loadConfig(NotifierConfig, env));
      return { url: running.url, probeUrl: running.internalUrl, stop: () => running.stop() };
    }
    case 'gateway': {
      const running = await startGateway(loadConfig(GatewayConfig, env));
      return { url: running.url, probeUrl: running.internalUrl, stop: () => running.stop() };
    }
    case 'web': {
      const running = await startWeb(loadConfig(WebConfig, env));
      return { url: running.url, probeUrl: running.internalUrl, stop: () => running.stop() };
    }
  }
}

/**
 * `npm run admin -- clinic …`, `… party …`, `… user …` and `… client …` in this process, with the CLI modules of routing and
 * auth; the exit code and the lines the command wrote.
 */
async function adminInProcess(argv: readonly string[], env: Record<string, string>): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (line: string) => out.push(line), err: (line: string) => err.push(line) };
  let code: number;
  if (argv[0] === 'clinic') code = await CLINIC_CLI.run([...argv], { open: () => openRoutingServices(loadConfig(RoutingCliConfig, env)), ...io });
  else if (argv[0] === 'user' || argv[0] === 'party' || argv[0] === 'client') {
    const cli = argv[0] === 'party' ? PARTY_CLI : argv[0] === 'client' ? CLIENT_CLI : USER_CLI;
    code = await cli.run([...argv], { open: () => openUserAdministration({ config: loadConfig(AuthCliConfig, env) }), ...io });
  } else {
    throw new Error(
      `admin ${argv[0] ?? ''}: only "clinic", "party", "user" and "client" run in-process; launch the stack with mode 'processes' for the others`,
    );
  }
  return { code, out, err };
}
