import { SERVICES, serviceEntry } from '@bedrequest/stack';
import { freePort } from '@bedrequest/testing';

/**
 * Every service's port and internal port variable (services.json, which `npm start` and the sandbox
 * read), each set to a free port: a launcher run as a process beside a developer's and other tests'.
 */
export async function freeServicePorts(): Promise<Record<string, string>> {
  const variables = SERVICES.flatMap((name) => {
    const { port, internalPort } = serviceEntry(name);
    return internalPort ? [port.variable, internalPort.variable] : [port.variable];
  });
  const ports = await Promise.all(variables.map(() => freePort()));
  return Object.fromEntries(variables.map((variable, index) => [variable, String(ports[index])]));
}
