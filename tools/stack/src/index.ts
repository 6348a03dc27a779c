import { inProcessRunner } from './in-process';
import { Stack } from './launcher';
import type { LaunchOptions } from './stack-types';

export { Stack } from './launcher';
export type { Instance, InstanceOptions, LaunchOptions, StackMode } from './stack-types';
export { SERVICES, serviceEntry, type ServiceName } from './services';
export { LOCAL_PROXY, isolatedEnvironment, provisionTopology } from './environment';
export { buildServices, root, type OutputHandling } from './child-process';

/** The one way to start the whole stack, in this process or as processes (see LaunchOptions). */
export function launchStack(options: LaunchOptions): Promise<Stack> {
  return Stack.launch(options, inProcessRunner);
}
export { removeKeptNamespace } from './environment';
export { ClinicAgents } from './sandbox/clinic-agents';
export { sandboxPassword } from './sandbox/clinic-agent';
export { SANDBOX_REFERRER, registerClinics, registerReferrer, type SandboxReferrer } from './sandbox/parties';
export type { SandboxClinic } from './sandbox/rules';
