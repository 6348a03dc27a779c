export { Stack, type Instance, type InstanceOptions, type LaunchOptions, type StackMode } from './launcher';
export { SERVICES, serviceEntry, type ServiceName } from './services';
export { LOCAL_PROXY, isolatedEnvironment } from './environment';
export { buildServices, root, type OutputHandling } from './child-process';
