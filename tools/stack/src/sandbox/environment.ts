import { isAbsolute, join } from 'node:path';
import { root } from '../child-process';
import { isolatedEnvironment } from '../environment';
import table from '../services.json';

/** How far the sandbox's ports stand from `npm start`'s, so that both run side by side: gateway 8180, web 8185, auth 8181, … */
export const SANDBOX_PORT_OFFSET = 100;

/** `npm start`'s namespace (the services' default), which a sandbox must never take: `--reset` drops its namespace. */
const NPM_START_NAMESPACE = 'bedrequest';

/** Where the sandbox is, as `npm run sandbox` reads it from its environment (docs/sandbox.md, "Configuration"). */
export interface SandboxSettings {
  /** Its broker namespace, and the prefix of its schemas and Redis keys (SANDBOX_NAMESPACE, default `sandbox`). */
  readonly namespace: string;
  /** What it keeps between runs beside the database: the client's key pair (SANDBOX_DIR, default tmp/sandbox). */
  readonly directory: string;
  /** The demo clinics' rules (SANDBOX_RULES_FILE, default tools/sandbox/clinics.json). */
  readonly rulesFile: string;
  /** The services' environment on top of this process's (Stack.launch's `env`). */
  readonly env: Record<string, string>;
  /** The gateway's public address, as callers reach it. */
  readonly apiUrl: string;
}

/**
 * The sandbox's environment: a namespace of its own that stays between runs (its schemas, broker
 * objects and Redis keys, like `npm start`'s), every service's port and internal port 100 above
 * `npm start`'s unless its variable names one, SANDBOX=true for every service, and the public API's
 * address at the sandbox's gateway (the audience of the SMART client's assertions).
 */
export function sandboxSettings(processEnv: NodeJS.ProcessEnv): SandboxSettings {
  const namespace = processEnv.SANDBOX_NAMESPACE?.trim() || 'sandbox';
  if (!/^[a-z][a-z0-9_]{0,39}$/.test(namespace) || namespace === NPM_START_NAMESPACE) {
    throw new Error(`SANDBOX_NAMESPACE "${namespace}" is not a namespace of its own: lower-case letters, digits and _, not "${NPM_START_NAMESPACE}"`);
  }
  const ports: Record<string, string> = {};
  for (const service of table.services) {
    for (const port of [service.port, service.internalPort]) ports[port.variable] = processEnv[port.variable] || String(port.default + SANDBOX_PORT_OFFSET);
  }
  const apiUrl = processEnv.API_PUBLIC_URL || `http://127.0.0.1:${ports.PORT}`;
  const inRoot = (path: string) => (isAbsolute(path) ? path : join(root, path));
  return {
    namespace,
    directory: inRoot(processEnv.SANDBOX_DIR || join('tmp', namespace)),
    rulesFile: inRoot(processEnv.SANDBOX_RULES_FILE || join('tools', 'sandbox', 'clinics.json')),
    apiUrl,
    env: { ...ports, ...isolatedEnvironment(namespace, processEnv.REDIS_KEY_PREFIX ?? ''), SANDBOX: 'true', API_PUBLIC_URL: apiUrl },
  };
}
