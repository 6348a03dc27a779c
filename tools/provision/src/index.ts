export { PRINCIPALS, PROVISIONED_SERVICES, provisionPlan, serviceEnvironment, type AdminUrls, type ProvisionPlan, type ProvisionedService } from './plan';
export { provision, provisionTargetOf, removeProvisioned, type ProvisionTarget } from './provision';
export { provisionBrokerTopology } from './rabbitmq';
