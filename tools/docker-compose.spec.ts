import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ZodObject, ZodRawShape, ZodType } from 'zod';
// The one place outside an app that reads the apps' config schemas: this test keeps the compose file
// in step with what the services actually read.
import { AuthConfig } from '../apps/auth/src/config';
import { GatewayConfig } from '../apps/gateway/src/config';
import { IntakeConfig } from '../apps/intake/src/config';
import { NotifierConfig } from '../apps/notifier/src/config';
import { RoutingConfig } from '../apps/routing/src/config';
import { WebConfig } from '../apps/web/src/config';

const root = join(__dirname, '..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { environment?: Record<string, string>; build?: { args?: { SERVICE?: string } }; healthcheck?: unknown }>;
};
const configs: Record<string, ZodObject<ZodRawShape>> = {
  gateway: GatewayConfig,
  auth: AuthConfig,
  intake: IntakeConfig,
  routing: RoutingConfig,
  notifier: NotifierConfig,
  web: WebConfig,
};

describe('docker-compose.yml', () => {
  it.each(Object.keys(configs))('runs %s from the shared Dockerfile with a health check', (name) => {
    const service = compose.services[name];
    expect(service?.build?.args?.SERVICE).toBe(name);
    expect(service?.healthcheck).toBeDefined();
  });

  it.each(Object.keys(configs))('sets only variables that %s reads', (name) => {
    const read = Object.keys(configs[name]!.shape);
    const set = Object.keys(compose.services[name]?.environment ?? {});
    expect(set.filter((variable) => !read.includes(variable))).toEqual([]);
  });

  it.each(Object.keys(configs))('points every *_URL that %s reads at a container, not at 127.0.0.1', (name) => {
    // The ones whose default is a local address; optional ones derived from another are exempt, and
    // so are the *_PUBLIC_URLs: where a browser reaches a service, through its published port.
    const shape = configs[name]!.shape;
    const urls = Object.keys(shape).filter(
      (variable) =>
        variable.endsWith('_URL') &&
        !variable.endsWith('_PUBLIC_URL') &&
        /127\.0\.0\.1|localhost/.test(String((shape[variable] as unknown as ZodType).safeParse(undefined).data)),
    );
    const environment = compose.services[name]?.environment ?? {};
    for (const variable of urls) {
      expect({ variable, value: environment[variable] }).toEqual({ variable, value: expect.stringMatching(/^[a-z]+:\/\/(?!127\.0\.0\.1|localhost)/) });
    }
  });

  it.each(Object.entries(configs))('gives %s a configuration its schema accepts', (name, schema) => {
    expect(schema.safeParse(compose.services[name]?.environment ?? {}).success).toBe(true);
  });

  it('starts the infrastructure with health checks the services wait for', () => {
    for (const name of ['postgres', 'redis', 'rabbitmq']) expect(compose.services[name]?.healthcheck).toBeDefined();
  });
});
