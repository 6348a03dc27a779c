import { inProcessRunner } from './in-process';
import { Stack, type LaunchOptions } from './launcher';

export { Stack, type Instance, type InstanceOptions, type LaunchOptions, type StackMode } from './launcher';
export { SERVICES, serviceEntry, type ServiceName } from './services';
export { LOCAL_PROXY, isolatedEnvironment } from './environment';
export { buildServices, root, type OutputHandling } from './child-process';

/** The one way to start the whole stack, in this process or as processes (see LaunchOptions). */
export function launchStack(options: LaunchOptions): Promise<Stack> {
  return Stack.launch(options, inProcessRunner);
}
