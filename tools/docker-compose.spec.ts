import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import dockerignore from '@balena/dockerignore';
import Ajv from 'ajv';
import { compile as compileAddressList } from 'proxy-addr';
import { parse, type CollectionTag, type ScalarTag } from 'yaml';
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
  image?: string;
  build?: { args?: { SERVICE?: string } };
  restart?: string;
  healthcheck?: unknown;
  environment?: Record<string, string>;
  ports?: (string | { host_ip?: string; target?: number; published?: string | number })[];
  depends_on?: Record<string, { condition: string }>;
  networks?: Record<string, { ipv4_address?: string } | null>;
  volumes?: string[];
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  networks?: { default?: { ipam?: { config?: { subnet?: string; ip_range?: string }[] } } };
}

const root = join(__dirname, '..');
const developmentText = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
const productionText = readFileSync(join(root, 'docker-compose.prod.yml'), 'utf8');

const variablesIn = (pattern: RegExp) => new Set([...`${developmentText}\n${productionText}`.matchAll(pattern)].map(([, name]) => name!));
/** The variables the files use (`${NAME}`) and those they ask for (`${NAME:?message}`: compose refuses to start without). */
const used = variablesIn(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g);
const required = variablesIn(/\$\{([A-Za-z_][A-Za-z0-9_]*):\?/g);

/** A value for each variable, of the form its reader checks (hex passwords and secrets, base64 keys, a host name). */
const variables = Object.fromEntries(
  [...used].map((name) => {
    const digest = createHash('sha256').update(name).digest();
    if (name === 'PUBLIC_HOST') return [name, 'bedrequest.example.org'];
    return [name, name.endsWith('_DATA_KEK') ? digest.toString('base64') : digest.toString('hex')];
  }),
);

/** A value an override file tags for the merge: `!reset` (the base's value goes) or `!override` (replaces it whole). */
class Tagged {
  constructor(
    readonly tag: 'reset' | 'override',
    readonly value: unknown,
  ) {}
}
const composeTags: (CollectionTag | ScalarTag)[] = (['reset', 'override'] as const).flatMap((tag) => [
  { tag: `!${tag}`, collection: 'seq' as const, resolve: (value: { toJSON(): unknown }) => new Tagged(tag, value.toJSON()) },
  { tag: `!${tag}`, collection: 'map' as const, resolve: (value: { toJSON(): unknown }) => new Tagged(tag, value.toJSON()) },
  { tag: `!${tag}`, resolve: (value: string) => new Tagged(tag, value) },
]);
const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Tagged);

/** What compose does to every string value: `$$` is a `$`, `${NAME…}` the variable's value. */
function interpolate(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}/g, (_match, name: string | undefined) => (name === undefined ? '$' : variables[name]!));
  }
  if (value instanceof Tagged) return new Tagged(value.tag, interpolate(value.value));
  if (Array.isArray(value)) return value.map(interpolate);
  if (isMapping(value)) return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, interpolate(entry)]));
  return value;
}

/** A file as compose reads it on its own: a tagged value is its value. */
function untagged(value: unknown): unknown {
  if (value instanceof Tagged) return untagged(value.value);
  if (Array.isArray(value)) return value.map(untagged);
  if (isMapping(value)) return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, untagged(entry)]));
  return value;
}

/** The attributes whose sequences an override replaces rather than extends (the Compose Specification, "Merge"). */
const REPLACED_SEQUENCES = new Set(['command', 'entrypoint', 'test']);

/**
 * Compose's merge of an override file (the Compose Specification, "Merge"): mappings key by key (the
 * environment among them), sequences appended (an entry already there not twice; `command`,
 * `entrypoint` and a health check's `test` replaced), scalars replaced; `!reset` drops the base's
 * value, `!override` replaces it whole.
 */
function merge(base: unknown, override: unknown, key = ''): unknown {
  if (override instanceof Tagged) return untagged(override.value);
  if (isMapping(base) && isMapping(override)) {
    const merged = { ...base };
    for (const [name, value] of Object.entries(override)) merged[name] = name in merged ? merge(merged[name], value, name) : untagged(value);
    return merged;
  }
  if (Array.isArray(base) && Array.isArray(override) && !REPLACED_SEQUENCES.has(key)) {
    const seen = new Set(base.map((entry) => JSON.stringify(entry)));
    return [...base, ...override.filter((entry) => !seen.has(JSON.stringify(entry)))];
  }
  return untagged(override);
}

const parseCompose = (text: string): unknown => parse(text, { merge: true, customTags: composeTags });
const development = interpolate(parseCompose(developmentText)) as ComposeFile;
const productionOverride = interpolate(parseCompose(productionText)) as ComposeFile;
const production = merge(development, productionOverride) as ComposeFile;
/** The Compose Specification's JSON schema, as the docker-compose package ships it (draft-07). */
const composeSpecification = JSON.parse(readFileSync(require.resolve('docker-compose/schema/compose-spec.json'), 'utf8')) as Record<string, unknown>;
// Its `$schema` names draft-07 by an address ajv's copy of that meta-schema does not carry; its union
// types are valid draft-07 that ajv's strict mode would only warn about.
delete composeSpecification.$schema;
const validateCompose = new Ajv({ allErrors: true, strict: false }).compile(composeSpecification);
const specificationErrors = (file: unknown) => {
  const plain = untagged(file);
  return validateCompose(plain) ? [] : (validateCompose.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
};

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
  it('publishes only the gateway and the web app, on loopback', () => {
    expect(publishedBy(development)).toEqual([
      { name: 'gateway', port: '127.0.0.1:8080:8080' },
      { name: 'web', port: '127.0.0.1:8085:8085' },
    ]);
  });

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

/** What a stack publishes: service and `host_ip:published:target`. */
const publishedBy = (stack: ComposeFile) =>
  Object.entries(stack.services).flatMap(([name, service]) =>
    (service.ports ?? []).map((port) => ({ name, port: typeof port === 'string' ? port : `${port.host_ip}:${port.published}:${port.target}` })),
  );

describe.each(stacks)('%s', (_file, stack) => {
  it('never publishes the management API', () => {
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
    notifier: { DATA_KEK: 'NOTIFIER_DATA_KEK', SERVICE_CLIENT_SECRET: 'SERVICE_CLIENT_SECRET' },
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

/** The fixed address of each service that has one on the compose network. */
const fixedAddresses = (stack: ComposeFile): Record<string, string> =>
  Object.fromEntries(
    Object.entries(stack.services).flatMap(([name, service]) => {
      const address = service.networks?.default?.ipv4_address;
      return address ? [[name, address]] : [];
    }),
  );
/** The entries of a service's TRUSTED_PROXIES. */
const trustedBy = (stack: ComposeFile, name: string) => (stack.services[name]?.environment?.TRUSTED_PROXIES ?? '').split(/[\s,]+/).filter(Boolean);
const within = (range: string) => {
  const contains = compileAddressList([range]);
  return (address: string) => contains(address, 0);
};

/** A Caddyfile without its comments. */
const caddyfileText = (text: string) => text.replace(/(^|\s)#.*$/gm, '$1');
/** Each `reverse_proxy [matcher] <upstream> { … }` of a Caddyfile: its upstream and the text of its block. */
function reverseProxies(text: string): { upstream: string; block: string }[] {
  return [...text.matchAll(/^\s*reverse_proxy\s+(?:@\S+\s+)?(\S+)[ \t]*(\{)?/gm)].map((match) => {
    const start = match.index + match[0].length;
    if (!match[2]) return { upstream: match[1]!, block: '' };
    let depth = 1;
    let end = start;
    for (; end < text.length && depth > 0; end++) depth += text[end] === '{' ? 1 : text[end] === '}' ? -1 : 0;
    return { upstream: match[1]!, block: text.slice(start, end - 1) };
  });
}

describe.each(stacks)("the client's address in %s", (_file, stack) => {
  it('keeps the fixed addresses out of the range compose gives the other containers', () => {
    const [ipam] = stack.networks?.default?.ipam?.config ?? [];
    expect(ipam).toMatchObject({ subnet: expect.any(String), ip_range: expect.any(String) });
    const inSubnet = within(ipam!.subnet!);
    const inDynamicRange = within(ipam!.ip_range!);
    for (const [name, address] of Object.entries(fixedAddresses(stack))) {
      expect({ name, address, inSubnet: inSubnet(address), inDynamicRange: inDynamicRange(address) }).toEqual({
        name,
        address,
        inSubnet: true,
        inDynamicRange: false,
      });
    }
  });

  it('has each service believe X-Forwarded-For only from fixed addresses of the services that pass a client on', () => {
    const fixed = fixedAddresses(stack);
    const passers = Object.entries(fixed).filter(([name]) => ['proxy', 'web', 'gateway'].includes(name));
    for (const name of Object.keys(stack.services)) {
      for (const entry of trustedBy(stack, name)) {
        // An exact address, not a range or a name: a range would take in whoever else gets an address in it.
        expect({ name, entry, of: passers.find(([, address]) => address === entry)?.[0] }).toEqual({ name, entry, of: expect.any(String) });
      }
    }
  });
});

describe('the proxy of docker-compose.prod.yml', () => {
  const proxy: ComposeService = production.services.proxy ?? {};
  const fixed = fixedAddresses(production);
  const mounted = (proxy.volumes ?? []).find((volume) => volume.split(':')[1] === '/etc/caddy/Caddyfile');
  const source = mounted && join(root, mounted.split(':')[0]!);
  const caddyfile = source && existsSync(source) ? caddyfileText(readFileSync(source, 'utf8')) : '';

  it('is the only service published, on the HTTP and HTTPS ports of IPv4', () => {
    // Docker would take IPv6 connections to this IPv4 network through its userland proxy, in whose
    // place the proxy would see Docker's bridge for every client.
    expect(publishedBy(production)).toEqual([
      { name: 'proxy', port: '0.0.0.0:80:80' },
      { name: 'proxy', port: '0.0.0.0:443:443' },
    ]);
  });

  it('runs the official Caddy image with a fixed address, its Caddyfile read-only, once the gateway and the web app are healthy', () => {
    expect(proxy.image).toMatch(/^caddy:\d/);
    expect(fixed.proxy).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(mounted).toMatch(/^\.\/deploy\/compose\/Caddyfile:\/etc\/caddy\/Caddyfile:ro$/);
    expect(proxy.depends_on).toEqual({ gateway: { condition: 'service_healthy' }, web: { condition: 'service_healthy' } });
  });

  it('is what the gateway and the web app believe, exactly; auth and intake believe the gateway', () => {
    const services = ['gateway', 'web', 'auth', 'intake', 'routing', 'notifier'];
    const believed = Object.fromEntries(services.map((name) => [name, trustedBy(production, name).sort()]));
    expect(fixed).toMatchObject({ proxy: expect.any(String), web: expect.any(String), gateway: expect.any(String) });
    expect(believed).toEqual({
      gateway: [fixed.proxy, fixed.web].sort(),
      web: [fixed.proxy],
      auth: [fixed.gateway],
      intake: [fixed.gateway],
      routing: [],
      notifier: [],
    });
  });

  it("names the client by its connection, replacing any X-Forwarded-For the client sent, and believes no one's", () => {
    const proxies = reverseProxies(caddyfile);
    expect(proxies.map(({ upstream }) => upstream).sort()).toEqual(['gateway:8080', 'web:8085']);
    for (const { upstream, block } of proxies) {
      expect({ upstream, replaces: /^\s*header_up\s+X-Forwarded-For\s+\{remote_host\}\s*$/m.test(block) }).toEqual({ upstream, replaces: true });
    }
    expect(caddyfile).not.toMatch(/trusted_proxies|header_up\s+\+X-Forwarded-For/);
  });

  it('serves the public host that the gateway sends the inbox to', () => {
    expect(proxy.environment?.PUBLIC_HOST).toBe(variables.PUBLIC_HOST);
    expect(caddyfile).toMatch(/^\{\$PUBLIC_HOST\}\s*\{/m);
    expect(production.services.gateway?.environment?.WEB_PUBLIC_URL).toBe(`https://${variables.PUBLIC_HOST}`);
  });
});

describe('Dockerfile', () => {
  it("leaves every .env file out of the build context, where COPY . . would put its secrets into the build stage's layers", () => {
    // Docker's own reading of .dockerignore (the library testcontainers builds its contexts with).
    const ignored = dockerignore().add(readFileSync(join(root, '.dockerignore'), 'utf8'));
    const secrets = ['.env', '.env.local', '.env.production', 'deploy/compose/.env', 'apps/auth/.env', 'apps/auth/.env.development'];
    expect(secrets.filter((path) => !ignored.ignores(path))).toEqual([]);
    // What the build reads stays in it: the packages, the sources, the health check, the migrations.
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap(([, sources]) => sources!.split(' ')).filter((path) => path !== '.');
    const needed = [...copied, 'apps/auth/src/main.ts', 'libs/config/src/index.ts', 'tools/deploy/runtime-files.mjs', 'deploy/base/services/config/auth.env'];
    expect(copied).toEqual(expect.arrayContaining(['package.json', '.npmrc', 'tools/docker/healthcheck.cjs']));
    expect(needed.filter((path) => ignored.ignores(path))).toEqual([]);
  });

  it('gives the provisioning image the migrations of every schema it provisions, where the job reads them', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const copied = [...dockerfile.matchAll(/^COPY apps\/([a-z]+)\/prisma\/migrations \.\/apps\/\1\/prisma\/migrations$/gm)].map(([, service]) => service);
    const owners = Object.entries(PRINCIPALS).flatMap(([service, principal]) => ('database' in principal ? [service] : []));
    expect(copied.sort()).toEqual(owners.sort());
  });
});
