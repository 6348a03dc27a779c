import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import type { ZodObject, ZodPreprocess, ZodRawShape } from 'zod';
import { PRINCIPALS, PROVISIONED_SERVICES, provisionPlan, serviceEnvironment } from '@bedrequest/provision';
// The one place outside an app that reads the apps' config schemas: this test keeps the compose file
// in step with what the services actually read.
import { AuthConfig } from '../apps/auth/src/config';
import { GatewayConfig } from '../apps/gateway/src/config';
import { IntakeConfig } from '../apps/intake/src/config';
import { NotifierConfig } from '../apps/notifier/src/config';
import { RoutingConfig } from '../apps/routing/src/config';
import { WebConfig } from '../apps/web/src/config';

interface ComposeService {
  build?: { args?: { SERVICE?: string } };
  restart?: string;
  healthcheck?: unknown;
  environment?: Record<string, string>;
  ports?: (string | { host_ip?: string; target?: number; published?: string | number })[];
  depends_on?: Record<string, { condition: string }>;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
}

const root = join(__dirname, '..');
const developmentText = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
const productionText = readFileSync(join(root, 'docker-compose.prod.yml'), 'utf8');

const variablesIn = (pattern: RegExp) => new Set([...`${developmentText}\n${productionText}`.matchAll(pattern)].map(([, name]) => name!));
/** The variables the files use (`${NAME}`) and those they ask for (`${NAME:?message}`: compose refuses to start without). */
const used = variablesIn(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g);
const required = variablesIn(/\$\{([A-Za-z_][A-Za-z0-9_]*):\?/g);

/** A value for each variable, of the form its reader checks (hex passwords and secrets, base64 keys). */
const variables = Object.fromEntries(
  [...used].map((name) => {
    const digest = createHash('sha256').update(name).digest();
    return [name, name.endsWith('_DATA_KEK') ? digest.toString('base64') : digest.toString('hex')];
  }),
);

/** What compose does to every string value: `$$` is a `$`, `${NAME…}` the variable's value. */
function interpolate(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}/g, (_match, name: string | undefined) => (name === undefined ? '$' : variables[name]!));
  }
  if (Array.isArray(value)) return value.map(interpolate);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, interpolate(entry)]));
  return value;
}

/** Compose's merge of an override file: mappings key by key (the environment among them), anything else replaced. */
function merge(base: unknown, override: unknown): unknown {
  const isMapping = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isMapping(base) || !isMapping(override)) return override;
  const merged = { ...base };
  for (const [key, value] of Object.entries(override)) merged[key] = key in merged ? merge(merged[key], value) : value;
  return merged;
}

const parseCompose = (text: string): unknown => parse(text, { merge: true });
const development = interpolate(parseCompose(developmentText)) as ComposeFile;
const productionOverride = interpolate(parseCompose(productionText)) as ComposeFile;
const production = merge(development, productionOverride) as ComposeFile;
/** The Compose Specification's JSON schema, as the docker-compose package ships it (draft-07). */
const composeSpecification = JSON.parse(readFileSync(require.resolve('docker-compose/schema/compose-spec.json'), 'utf8')) as Record<string, unknown>;
// Its `$schema` names draft-07 by an address ajv's copy of that meta-schema does not carry; its union
// types are valid draft-07 that ajv's strict mode would only warn about.
delete composeSpecification.$schema;
const validateCompose = new Ajv({ allErrors: true, strict: false }).compile(composeSpecification);
const specificationErrors = (file: unknown) =>
  validateCompose(file) ? [] : (validateCompose.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);

const stacks: [string, ComposeFile][] = [
  ['docker-compose.yml', development],
  ['docker-compose.yml with docker-compose.prod.yml', production],
];

const configs: Record<string, ZodPreprocess<ZodObject<ZodRawShape>>> = {
  gateway: GatewayConfig,
  auth: AuthConfig,
  intake: IntakeConfig,
  routing: RoutingConfig,
  notifier: NotifierConfig,
  web: WebConfig,
};

describe('docker-compose.yml', () => {
  it.each(Object.keys(configs))('runs %s from the shared Dockerfile with a health check', (name) => {
    const service = development.services[name];
    expect(service?.build?.args?.SERVICE).toBe(name);
    expect(service?.healthcheck).toBeDefined();
  });

  it.each(Object.keys(configs))('sets only variables that %s reads', (name) => {
    const read = Object.keys(configs[name]!.out.shape);
    const set = Object.keys(development.services[name]?.environment ?? {});
    expect(set.filter((variable) => !read.includes(variable))).toEqual([]);
  });

  it.each(Object.keys(configs))('points every *_URL that %s reads at a container, not at 127.0.0.1', (name) => {
    // The ones whose development default is a local address; optional ones derived from another are
    // exempt, and so are the *_PUBLIC_URLs: where a browser reaches a service, through its published port.
    const defaults = configs[name]!.parse({ NODE_ENV: 'development', SERVICE_CLIENT_SECRET: 's'.repeat(32) }) as Record<string, unknown>;
    const urls = Object.keys(configs[name]!.out.shape).filter(
      (variable) => variable.endsWith('_URL') && !variable.endsWith('_PUBLIC_URL') && /127\.0\.0\.1|localhost/.test(String(defaults[variable])),
    );
    const environment = development.services[name]?.environment ?? {};
    for (const variable of urls) {
      expect({ variable, value: environment[variable] }).toEqual({ variable, value: expect.stringMatching(/^[a-z]+:\/\/(?!127\.0\.0\.1|localhost)/) });
    }
  });

  it.each(Object.entries(configs))('gives %s a configuration its schema accepts', (name, schema) => {
    expect(schema.safeParse(development.services[name]?.environment ?? {}).success).toBe(true);
  });

  it('starts the infrastructure with health checks the provisioning job waits for', () => {
    for (const name of ['postgres', 'redis', 'rabbitmq']) {
      expect(development.services[name]?.healthcheck).toBeDefined();
      expect(development.services.provision?.depends_on?.[name]).toEqual({ condition: 'service_healthy' });
    }
  });

  it('provisions once per start, from the shared Dockerfile', () => {
    expect(development.services.provision).toMatchObject({ build: { args: { SERVICE: 'provision' } }, restart: 'no' });
  });

  it('asks PostgreSQL for a SCRAM-checked password on every connection, and RabbitMQ and Redis for their administrators', () => {
    expect(development.services.postgres?.environment).toMatchObject({
      POSTGRES_USER: variables.POSTGRES_ADMIN_USER,
      POSTGRES_PASSWORD: variables.POSTGRES_ADMIN_PASSWORD,
      POSTGRES_INITDB_ARGS: '--auth=scram-sha-256',
      POSTGRES_HOST_AUTH_METHOD: 'scram-sha-256',
    });
    expect(development.services.rabbitmq?.environment).toEqual({
      RABBITMQ_DEFAULT_USER: variables.RABBITMQ_ADMIN_USER,
      RABBITMQ_DEFAULT_PASS: variables.RABBITMQ_ADMIN_PASSWORD,
    });
    expect(parseCompose(developmentText)).toMatchObject({
      services: { redis: { command: ['redis-server', '--requirepass', expect.stringMatching(/^\$\{REDIS_ADMIN_PASSWORD:\?/)] } },
    });
  });
});

describe.each(stacks)('%s', (_file, stack) => {
  it('publishes only the gateway and the web app, on loopback, and never the management API', () => {
    const published = Object.entries(stack.services).flatMap(([name, service]) =>
      (service.ports ?? []).map((port) => ({ name, port: typeof port === 'string' ? port : `${port.host_ip}:${port.published}:${port.target}` })),
    );
    expect(published).toEqual([
      { name: 'gateway', port: '127.0.0.1:8080:8080' },
      { name: 'web', port: '127.0.0.1:8085:8085' },
    ]);
    expect(JSON.stringify(stack)).not.toContain('15672:15672');
  });

  it('lets no connection in without a password (no trust method)', () => {
    const environments = Object.values(stack.services).map((service) => service.environment ?? {});
    expect(environments.flatMap((environment) => [environment.POSTGRES_HOST_AUTH_METHOD, environment.POSTGRES_INITDB_ARGS])).not.toContainEqual(
      expect.stringMatching(/trust/),
    );
  });

  it.each(Object.keys(configs))('starts %s after the provisioning job has succeeded', (name) => {
    expect(stack.services[name]?.depends_on?.provision).toEqual({ condition: 'service_completed_successfully' });
  });

  it.each(PROVISIONED_SERVICES)('connects %s as the users provisioning made for it, with their passwords', (name) => {
    // The provisioning job's own reading of its environment: the plan, and the servers it reached as administrator.
    const job = stack.services.provision!.environment!;
    const expected = serviceEnvironment(provisionPlan(job, { generatePasswords: false }), name, {
      database: job.PROVISION_DATABASE_URL!,
      amqp: job.PROVISION_AMQP_URL!,
      redis: job.PROVISION_REDIS_URL!,
    });
    const environment = stack.services[name]?.environment ?? {};
    const connections = Object.fromEntries(['DATABASE_URL', 'AMQP_URL', 'REDIS_URL'].filter((url) => url in environment).map((url) => [url, environment[url]]));
    expect(connections).toEqual(expected);
    for (const url of Object.values(connections)) expect(decodeURIComponent(new URL(url!).username)).toMatch(new RegExp(`^bedrequest_${name}(_app)?$`));
  });

  it('provisions the names the services use (namespace, schemas, key prefix, delivery limit)', () => {
    const job = stack.services.provision!.environment!;
    for (const name of Object.keys(configs)) {
      const environment = stack.services[name]?.environment ?? {};
      for (const variable of [
        'AMQP_NAMESPACE',
        'REDIS_KEY_PREFIX',
        'AMQP_DELIVERY_LIMIT',
        'AUTH_DB_SCHEMA',
        'INTAKE_DB_SCHEMA',
        'ROUTING_DB_SCHEMA',
        'NOTIFIER_DB_SCHEMA',
      ]) {
        if (variable in environment) expect({ name, variable, value: environment[variable] }).toEqual({ name, variable, value: job[variable] });
      }
    }
  });

  it('is a valid Compose file (the Compose Specification schema)', () => {
    expect(specificationErrors(stack)).toEqual([]);
  });
});

describe('the compose files', () => {
  it('name no guest user', () => {
    expect(`${developmentText}\n${productionText}`).not.toMatch(/guest/i);
  });

  it('ask for every variable they use, so that compose refuses to start without one', () => {
    // A plain `${NAME}` elsewhere is enough once one `${NAME:?…}` stands for it: compose reads the whole file.
    expect([...used].filter((name) => !required.has(name))).toEqual([]);
  });

  it('validate on their own against the Compose Specification schema (the override too)', () => {
    expect(specificationErrors(development)).toEqual([]);
    expect(specificationErrors(productionOverride)).toEqual([]);
  });
});

describe('docker-compose.prod.yml', () => {
  // Per service: each secret it reads in production, and the variable of the environment it comes from.
  const secrets: Record<string, Record<string, string>> = {
    auth: { SERVICE_CLIENT_SECRET: 'SERVICE_CLIENT_SECRET', AUTH_SIGNING_KEY: 'AUTH_SIGNING_KEY' },
    intake: { SERVICE_CLIENT_SECRET: 'SERVICE_CLIENT_SECRET', DATA_KEK: 'INTAKE_DATA_KEK' },
    gateway: { SERVICE_CLIENT_SECRET: 'SERVICE_CLIENT_SECRET' },
    notifier: { DATA_KEK: 'NOTIFIER_DATA_KEK' },
    web: { WEB_CSRF_SECRET: 'WEB_CSRF_SECRET' },
  };
  const override = parseCompose(productionText) as ComposeFile;

  it.each([...Object.keys(configs), 'provision'])('runs %s with NODE_ENV=production', (name) => {
    expect(production.services[name]?.environment?.NODE_ENV).toBe('production');
  });

  it.each(Object.entries(secrets))('requires the production secrets of %s from the environment', (name, sources) => {
    const environment = override.services[name]?.environment ?? {};
    for (const [variable, source] of Object.entries(sources)) {
      expect({ variable, value: environment[variable] }).toEqual({ variable, value: expect.stringMatching(new RegExp(`^\\$\\{${source}:\\?`)) });
    }
  });

  it.each(Object.entries(configs))('gives %s a configuration its schema accepts in production', (name, schema) => {
    const environment = production.services[name]?.environment ?? {};
    const result = schema.safeParse(environment);
    expect(result.error?.issues ?? []).toEqual([]);
  });
});

describe('Dockerfile', () => {
  it('gives the provisioning image the migrations of every schema it provisions, where the job reads them', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const copied = [...dockerfile.matchAll(/^COPY apps\/([a-z]+)\/prisma\/migrations \.\/apps\/\1\/prisma\/migrations$/gm)].map(([, service]) => service);
    const owners = Object.entries(PRINCIPALS).flatMap(([service, principal]) => ('database' in principal ? [service] : []));
    expect(copied.sort()).toEqual(owners.sort());
  });
});
