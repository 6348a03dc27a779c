import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ZodObject, ZodPreprocess, ZodRawShape } from 'zod';
import { declareTopology } from '@bedrequest/contracts';
import { PRINCIPALS, PROVISIONED_SERVICES, provisionPlan } from '@bedrequest/provision';
// What the services read: the manifests are checked against the code that will run them.
import { AuthCliConfig, AuthConfig } from '../../apps/auth/src/config';
import { GatewayConfig } from '../../apps/gateway/src/config';
import { IntakeCliConfig, IntakeConfig } from '../../apps/intake/src/config';
import { NotifierCliConfig, NotifierConfig } from '../../apps/notifier/src/config';
import { RoutingCliConfig, RoutingConfig } from '../../apps/routing/src/config';
import { WebConfig } from '../../apps/web/src/config';
import {
  DEPLOY_DIR,
  WORKLOAD_KINDS,
  containersOf,
  environmentOf,
  find,
  matches,
  nameOf,
  ofKind,
  renderOverlay,
  workloadsOf,
  type Container,
  type KubernetesObject,
  type Workload,
} from './manifests';
import { allowsConnection, type Endpoint, type NetworkPolicy } from './network-policies';
import { serviceEntry, type ServiceName } from '@bedrequest/stack';
import { schemaProblems } from './schemas';

const overlays = { production: renderOverlay('production'), 'infrastructure-example': renderOverlay('infrastructure-example') };
const production = overlays.production;
const infrastructure = overlays['infrastructure-example'];

const configs: Record<string, ZodPreprocess<ZodObject<ZodRawShape>>> = {
  gateway: GatewayConfig,
  web: WebConfig,
  auth: AuthConfig,
  intake: IntakeConfig,
  routing: RoutingConfig,
  notifier: NotifierConfig,
};
const SERVICES = Object.keys(configs);
/** The admin command line each image holds (cli-main.cjs), run in the service's pod with its environment. */
const cliConfigs: Record<string, ZodPreprocess<ZodObject<ZodRawShape>>> = {
  auth: AuthCliConfig,
  intake: IntakeCliConfig,
  routing: RoutingCliConfig,
  notifier: NotifierCliConfig,
};

type ScaledObject = KubernetesObject & { spec: { triggers: { type: string; metadata: Record<string, string>; authenticationRef: { name: string } }[] } };
type TriggerAuthentication = KubernetesObject & { spec: { secretTargetRef: { parameter: string; name: string; key: string }[] } };

/** A variable whose value is a secret by its name: it comes from a Secret, never from the manifests. A `…_FILE` names a file, mounted from a Secret where it holds one. */
const looksSecret = (name: string) => /PASSWORD|SECRET|TOKEN|KEK|(^|_)KEY(_|$)|(^|_)AUTH$/.test(name) && !/_(ID|URL|AUDIENCE|SECONDS|PREFIX|FILE)$/.test(name);

/** Every string in an object, with where it is. */
function stringsOf(node: unknown, path = ''): [string, string][] {
  if (typeof node === 'string') return [[path, node]];
  if (Array.isArray(node)) return node.flatMap((item, index) => stringsOf(item, `${path}/${index}`));
  if (typeof node === 'object' && node !== null) return Object.entries(node).flatMap(([key, value]) => stringsOf(value, `${path}/${key}`));
  return [];
}

/** What is wrong with a container's probe of `kind`, if anything. */
function probeProblem(container: Container, kind: 'livenessProbe' | 'readinessProbe'): string | undefined {
  const probe = container[kind];
  if (!probe) return `no ${kind}`;
  if (probe.exec) return undefined;
  const port = probe.httpGet?.port ?? probe.tcpSocket?.port;
  if (port === undefined) return `${kind} checks nothing`;
  return (container.ports ?? []).some((entry) => entry.name === port || entry.containerPort === port) ? undefined : `${kind} on undeclared port ${port}`;
}

const containerOf = (objects: readonly KubernetesObject[], kind: string, name: string): Container =>
  find<Workload>(objects, kind, name).spec.template.spec.containers[0]!;
const environment = (name: string) => environmentOf(containerOf(production, 'Deployment', name), production);
const job = () => environmentOf(containerOf(production, 'Job', 'provision'), production);
/** Where the services find PostgreSQL, RabbitMQ and Redis: the ConfigMap `infrastructure` (its name carries a hash). */
const infrastructureAddress = (key: string) => ofKind(production, 'ConfigMap').find((map) => map.metadata.name.startsWith('infrastructure-'))!.data![key]!;

describe.each(Object.entries(overlays))('deploy/overlays/%s', (_overlay, objects) => {
  it('is valid against the schema of every kind in it', () => {
    expect(schemaProblems(objects)).toEqual([]);
  });

  it('runs every container as a numbered user other than root, read-only, without privilege escalation or capabilities', () => {
    const problems = containersOf(objects).flatMap(({ workload, container }) => {
      const pod = workload.spec.template.spec.securityContext ?? {};
      const own = container.securityContext ?? {};
      const effective = { ...pod, ...own };
      const where = `${nameOf(workload)} ${container.name}`;
      return [
        effective.runAsNonRoot === true || `${where}: runAsNonRoot`,
        // The kubelet can check runAsNonRoot only against a numbered user (the Node images' is `node`).
        (effective.runAsUser ?? 0) > 0 || `${where}: runAsUser`,
        own.readOnlyRootFilesystem === true || `${where}: readOnlyRootFilesystem`,
        own.allowPrivilegeEscalation === false || `${where}: allowPrivilegeEscalation`,
        (own.capabilities?.drop?.includes('ALL') && !own.capabilities.add?.length) || `${where}: capabilities`,
        effective.seccompProfile?.type === 'RuntimeDefault' || `${where}: seccompProfile`,
      ].filter((entry): entry is string => typeof entry === 'string');
    });
    expect(problems).toEqual([]);
  });

  it('gives every container CPU and memory requests and limits', () => {
    const problems = containersOf(objects).flatMap(({ workload, container }) =>
      ['requests', 'limits'].flatMap((bound) =>
        ['cpu', 'memory']
          .filter((resource) => !container.resources?.[bound as 'requests' | 'limits']?.[resource])
          .map((resource) => `${nameOf(workload)} ${container.name}: ${bound}.${resource}`),
      ),
    );
    expect(problems).toEqual([]);
  });

  it('probes every long-running container for liveness and readiness, on a port it declares', () => {
    const problems = containersOf(objects)
      .filter(({ workload, init }) => !init && WORKLOAD_KINDS[workload.kind]!.longRunning)
      .flatMap(({ workload, container }) =>
        (['livenessProbe', 'readinessProbe'] as const).flatMap((kind) => {
          const problem = probeProblem(container, kind);
          return problem ? [`${nameOf(workload)} ${container.name}: ${problem}`] : [];
        }),
      );
    expect(problems).toEqual([]);
  });

  it('pins every image to a tag or a digest, never latest', () => {
    const unpinned = containersOf(objects)
      .map(({ container }) => container.image)
      .filter((image) => {
        if (/@sha256:[0-9a-f]{64}$/.test(image)) return false;
        const name = image.slice(image.lastIndexOf('/') + 1);
        const tag = name.includes(':') ? name.slice(name.indexOf(':') + 1) : '';
        return tag === '' || tag === 'latest';
      });
    expect(unpinned).toEqual([]);
  });

  it('holds no secret: no Secret object, secret variables from secretKeyRef, no password in a URL', () => {
    expect(ofKind(objects, 'Secret').map(nameOf)).toEqual([]);
    const fromValues = containersOf(objects).flatMap(({ workload, container }) =>
      (container.env ?? [])
        .filter((variable) => looksSecret(variable.name) && !variable.valueFrom?.secretKeyRef)
        .map((variable) => `${nameOf(workload)}: ${variable.name}`),
    );
    const inConfigMaps = ofKind(objects, 'ConfigMap').flatMap((configMap) =>
      Object.keys(configMap.data ?? {})
        .filter(looksSecret)
        .map((key) => `${nameOf(configMap)}: ${key}`),
    );
    // A URL's password is only ever a reference to a variable from a Secret: `$(NAME)`.
    const inUrls = objects.flatMap((object) =>
      stringsOf(object)
        .filter(([, text]) => [...text.matchAll(/[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:([^@\s]*)@/gi)].some(([, password]) => !/^\$\([A-Z0-9_]+\)$/.test(password!)))
        .map(([path]) => `${nameOf(object)}: ${path}`),
    );
    expect([...fromValues, ...inConfigMaps, ...inUrls]).toEqual([]);
  });

  it('denies all traffic in every namespace it uses, but what a policy allows', () => {
    const namespaces = new Set(objects.filter((object) => object.kind !== 'Namespace').map((object) => object.metadata.namespace));
    const policies = ofKind<NetworkPolicy>(objects, 'NetworkPolicy');
    const denying = (namespace: string | undefined) =>
      policies.some(
        (policy) =>
          policy.metadata.namespace === namespace &&
          Object.keys(policy.spec.podSelector.matchLabels ?? {}).length === 0 &&
          ['Ingress', 'Egress'].every((type) => policy.spec.policyTypes.includes(type as 'Ingress')) &&
          !policy.spec.ingress?.length &&
          !policy.spec.egress?.length,
      );
    expect([...namespaces].filter((namespace) => !denying(namespace))).toEqual([]);
    // The policies are read with matchLabels only (network-policies.ts).
    expect(JSON.stringify(policies)).not.toContain('matchExpressions');
  });

  it('mounts no service account token into any pod', () => {
    const mounting = [
      ...ofKind<KubernetesObject & { automountServiceAccountToken?: boolean }>(objects, 'ServiceAccount').filter(
        (account) => account.automountServiceAccountToken !== false,
      ),
      ...workloadsOf(objects).filter((workload) => workload.spec.template.spec.automountServiceAccountToken !== false),
    ];
    expect(mounting.map(nameOf)).toEqual([]);
  });
});

describe('deploy/overlays/production', () => {
  it('has every kind a deployment of the services needs', () => {
    const kinds = new Set(production.map((object) => object.kind));
    const needed = [
      'Namespace',
      'ServiceAccount',
      'ConfigMap',
      'Deployment',
      'Service',
      'PodDisruptionBudget',
      'NetworkPolicy',
      'Ingress',
      'Job',
      'HorizontalPodAutoscaler',
      'ScaledObject',
      'TriggerAuthentication',
    ];
    expect(needed.filter((kind) => !kinds.has(kind))).toEqual([]);
  });

  it.each(SERVICES)('runs %s under its own service account, behind a Service, with a disruption budget and a network policy', (name) => {
    const deployment = find<Workload>(production, 'Deployment', name);
    const pod = deployment.spec.template;
    expect(pod.spec.serviceAccountName).toBe(name);
    find(production, 'ServiceAccount', name);
    const service = find<KubernetesObject & { spec: { selector: Record<string, string>; ports: { targetPort: string | number }[] } }>(
      production,
      'Service',
      name,
    );
    expect(matches(service.spec.selector, pod.metadata.labels)).toBe(true);
    const ports = pod.spec.containers[0]!.ports ?? [];
    expect(service.spec.ports.filter((port) => !ports.some((entry) => entry.name === port.targetPort || entry.containerPort === port.targetPort))).toEqual([]);
    const budget = find<KubernetesObject & { spec: { selector: { matchLabels: Record<string, string> }; maxUnavailable?: number } }>(
      production,
      'PodDisruptionBudget',
      name,
    );
    expect(matches(budget.spec.selector.matchLabels, pod.metadata.labels) && budget.spec.maxUnavailable).toBe(1);
    expect(matches(find<NetworkPolicy>(production, 'NetworkPolicy', name).spec.podSelector.matchLabels, pod.metadata.labels)).toBe(true);
  });

  it('scales the gateway and the web app on CPU, routing on its queue, the notifier on its backlog, never below one replica; intake is two, one active', () => {
    type Autoscaler = KubernetesObject & {
      spec: {
        scaleTargetRef: { name: string };
        minReplicas?: number;
        minReplicaCount?: number;
        metrics?: { resource?: { name: string } }[];
        triggers?: { type: string }[];
      };
    };
    const scaled = [...ofKind<Autoscaler>(production, 'HorizontalPodAutoscaler'), ...ofKind<Autoscaler>(production, 'ScaledObject')].map((autoscaler) => ({
      target: autoscaler.spec.scaleTargetRef.name,
      by: autoscaler.spec.metrics?.map((metric) => metric.resource?.name).join() ?? autoscaler.spec.triggers!.map((trigger) => trigger.type).join(),
      min: autoscaler.spec.minReplicas ?? autoscaler.spec.minReplicaCount ?? 0,
    }));
    expect(scaled.map(({ target, by }) => `${target}: ${by}`).sort()).toEqual(['gateway: cpu', 'web: cpu', 'routing: rabbitmq', 'notifier: postgresql'].sort());
    // Intake's queue has a single active consumer (a request's bundles in order): one replica
    // consumes, one stands by; more would add nothing.
    expect(find<Workload>(production, 'Deployment', 'intake').spec.replicas).toBe(2);
    expect(scaled.filter(({ min }) => min < 1)).toEqual([]);
    // An applied replica count would reset the autoscaler's on every release.
    const fixed = scaled.filter(({ target }) => find<Workload>(production, 'Deployment', target).spec.replicas !== undefined);
    expect(fixed).toEqual([]);
  });

  it.each(['routing'] as const)("scales %s on the length of its own queue, with KEDA's broker user from a Secret", (name) => {
    const [trigger] = find<ScaledObject>(production, 'ScaledObject', name).spec.triggers;
    const queue = declareTopology(environment(name).values.AMQP_NAMESPACE!).queues[name].name;
    expect(trigger!.metadata).toMatchObject({ protocol: 'amqp', mode: 'QueueLength', queueName: queue, value: expect.stringMatching(/^\d+$/) });
    const authentication = find<TriggerAuthentication>(production, 'TriggerAuthentication', trigger!.authenticationRef.name);
    expect(authentication.spec.secretTargetRef.map((reference) => reference.parameter)).toEqual(['host']);
  });

  it("scales the notifier on its backlog's view, logged in at its database as KEDA's role, which provisioning makes with the job's password", () => {
    const notifier = environment('notifier');
    const [trigger] = find<ScaledObject>(production, 'ScaledObject', 'notifier').spec.triggers;
    const database = new URL(notifier.values.DATABASE_URL!);
    const plan = provisionPlan(job().values, { generatePasswords: false });
    const keda = plan.database.find((principal) => principal.service === 'notifier')!.readers.find((reader) => reader.name === 'keda')!;
    // The view counts what the gauge webhook_deliveries_due counts (tools/provision/src/keda-reader.int.spec.ts).
    expect(keda.views).toEqual(['delivery_backlog']);
    expect(trigger!.metadata).toMatchObject({
      query: `SELECT due FROM "${notifier.values.NOTIFIER_DB_SCHEMA}"."delivery_backlog"`,
      host: database.hostname,
      port: database.port,
      dbName: database.pathname.slice(1),
      userName: keda.role,
      targetQueryValue: expect.stringMatching(/^\d+$/),
    });
    expect(trigger!.metadata.userName).not.toBe(database.username);
    const authentication = find<TriggerAuthentication>(production, 'TriggerAuthentication', trigger!.authenticationRef.name);
    const [secret, key] = job().fromSecrets.KEDA_DATABASE_PASSWORD!;
    expect(authentication.spec.secretTargetRef).toEqual([{ parameter: 'password', name: secret, key }]);
  });

  it.each(SERVICES)('gives %s a configuration its src/config.ts (and its admin command line) accepts in production, and nothing they do not read', (name) => {
    const { values, referenced } = environment(name);
    const result = configs[name]!.safeParse(values);
    expect(result.error?.issues ?? []).toEqual([]);
    expect(cliConfigs[name]?.safeParse(values).error?.issues ?? []).toEqual([]);
    expect(values.NODE_ENV).toBe('production');
    // Besides what they read, only the parts its URLs are made of.
    const read = [configs[name]!, cliConfigs[name]].flatMap((config) => (config ? Object.keys(config.out.shape) : []));
    expect(Object.keys(values).filter((variable) => !read.includes(variable) && !referenced.has(variable))).toEqual([]);
    expect(Object.entries(values).filter(([, value]) => value.includes('$('))).toEqual([]);
  });

  it.each(PROVISIONED_SERVICES)('connects %s as the users provisioning makes for it, with the passwords the job is given, at the servers', (name) => {
    const plan = provisionPlan(job().values, { generatePasswords: false });
    const { values } = environment(name);
    const users = [
      ...plan.database
        .filter((principal) => principal.service === name)
        .map((principal) => ({ variable: 'DATABASE_URL', user: principal.app, password: principal.password })),
      ...plan.broker
        .filter((principal) => principal.service === name)
        .map((principal) => ({ variable: 'AMQP_URL', user: principal.user, password: principal.password })),
      ...plan.redis
        .filter((principal) => principal.service === name)
        .map((principal) => ({ variable: 'REDIS_URL', user: principal.user, password: principal.password })),
    ];
    const addresses: Record<string, string> = { DATABASE_URL: 'POSTGRES_ADDRESS', AMQP_URL: 'RABBITMQ_ADDRESS', REDIS_URL: 'REDIS_ADDRESS' };
    expect(users.length).toBeGreaterThan(0);
    for (const { variable, user, password } of users) {
      const url = new URL(values[variable]!);
      expect({ variable, user: decodeURIComponent(url.username), password: decodeURIComponent(url.password), host: url.host }).toEqual({
        variable,
        user,
        password,
        host: infrastructureAddress(addresses[variable]!),
      });
    }
  });

  it('provisions the names the services use: namespace, schemas, key prefix', () => {
    const provisioned = job().values;
    const differing = SERVICES.flatMap((name) =>
      Object.entries(environment(name).values)
        .filter(([variable]) => /^(AMQP_NAMESPACE|REDIS_KEY_PREFIX|AMQP_DELIVERY_LIMIT|[A-Z]+_DB_SCHEMA)$/.test(variable))
        .filter(([variable, value]) => provisioned[variable] !== value)
        .map(([variable]) => `${name}: ${variable}`),
    );
    expect(differing).toEqual([]);
  });

  it('can apply the provisioning job, with all it needs, before any service (deploy/README.md, "A release")', () => {
    const first = production.filter((object) => object.metadata.labels?.['app.kubernetes.io/component'] !== 'service');
    const jobPod = find<Workload>(first, 'Job', 'provision').spec.template;
    const container = jobPod.spec.containers[0]!;
    find(first, 'ServiceAccount', jobPod.spec.serviceAccountName!);
    for (const source of container.envFrom ?? []) find(first, 'ConfigMap', source.configMapRef!.name);
    expect(
      ofKind<NetworkPolicy>(first, 'NetworkPolicy').some(
        (policy) => matches(policy.spec.podSelector.matchLabels, jobPod.metadata.labels) && policy.spec.egress,
      ),
    ).toBe(true);
    expect(first.filter((object) => ['Deployment', 'HorizontalPodAutoscaler', 'ScaledObject', 'Ingress'].includes(object.kind)).map(nameOf)).toEqual([]);
    // One release: the job applies the migrations of the services' own version.
    const tags = new Set(containersOf(production).map(({ container: { image } }) => image.slice(image.lastIndexOf(':'))));
    expect(tags.size).toBe(1);
  });
});

describe('deploy/overlays/production network policies', () => {
  const namespace = production.find((object) => object.kind === 'Namespace')!.metadata.name;
  const pods: Record<string, Endpoint> = Object.fromEntries(
    workloadsOf(production).map((workload) => [workload.metadata.name, { namespace, labels: workload.spec.template.metadata.labels }]),
  );
  /** Who calls whom on which port (docs/architecture.md, "Internal HTTP APIs"); everything else is refused. */
  const callers: Record<string, Record<string, string[]>> = {
    gateway: { web: ['http'] },
    web: {},
    auth: { gateway: ['http'], intake: ['http'], routing: ['http'], notifier: ['http'] },
    intake: { gateway: ['http'] },
    routing: { gateway: ['http'], intake: ['http'], auth: ['http'] },
    notifier: { gateway: ['http'] },
  };
  const outside = {
    'ingress-nginx': { namespace: 'ingress-nginx', labels: {} },
    monitoring: { namespace: 'monitoring', labels: {} },
    default: { namespace: 'default', labels: {} },
  };
  /** What the outside may reach: the Ingress controller the public ports, Prometheus each service's internal port (its metrics) and no other. */
  const fromOutside = (source: string, target: string, port: string) =>
    (source === 'ingress-nginx' && ['gateway', 'web'].includes(target) && port === 'http') || (source === 'monitoring' && port === 'internal');

  it("lets each service's ports be reached by its callers, the Ingress controller and Prometheus only", () => {
    const wrong = SERVICES.flatMap((target) =>
      (containerOf(production, 'Deployment', target).ports ?? []).flatMap((port) =>
        [...Object.keys(pods), ...Object.keys(outside)].flatMap((source) => {
          const from = pods[source] ?? outside[source as keyof typeof outside];
          const expected = source in pods ? (callers[target]![source] ?? []).includes(port.name!) : fromOutside(source, target, port.name!);
          const allowed = allowsConnection(production, from, pods[target]!, port);
          return allowed === expected ? [] : [`${source} → ${target}:${port.name} ${allowed ? 'allowed' : 'refused'}`];
        }),
      ),
    );
    expect(wrong).toEqual([]);
  });

  it.each(SERVICES)(
    "serves %s's probes and metrics on an internal port of its own, the one its configuration names, which alone monitoring reaches",
    (name) => {
      const container = containerOf(production, 'Deployment', name);
      const { values } = environment(name);
      const { port, internalPort } = serviceEntry(name as ServiceName);
      const declared = Object.fromEntries((container.ports ?? []).map((entry) => [entry.name, entry.containerPort]));
      expect(declared).toEqual({ http: Number(values[port.variable]), internal: Number(values[internalPort!.variable]) });
      expect(declared.internal).not.toBe(declared.http);
      const probes = (['startupProbe', 'livenessProbe', 'readinessProbe'] as const).map((kind) => container[kind]?.httpGet?.port);
      expect(probes).toEqual(['internal', 'internal', 'internal']);
      const monitoring = { namespace: 'monitoring', labels: {} };
      const reached = (container.ports ?? []).filter((entry) => allowsConnection(production, monitoring, pods[name]!, entry)).map((entry) => entry.name);
      expect(reached).toEqual(['internal']);
    },
  );

  it('lets each workload reach the servers it has users on (tools/provision/src/plan.ts), and no others', () => {
    // RabbitMQ's TLS ports (docs/operations.md, "Encryption in transit").
    const servers = { database: 5432, broker: 5671, redis: 6379, 'broker management': 15671 };
    const data = { namespace: infrastructure.find((object) => object.kind === 'Namespace')!.metadata.name, labels: {} };
    const reached = Object.entries(pods).map(([name, pod]) => ({
      name,
      servers: Object.entries(servers)
        .filter(([, containerPort]) => allowsConnection(production, pod, data, { containerPort }))
        .map(([server]) => server),
    }));
    const expected = Object.keys(pods).map((name) => ({
      name,
      servers: name === 'provision' ? Object.keys(servers) : Object.keys(servers).filter((server) => server in PRINCIPALS[name as keyof typeof PRINCIPALS]),
    }));
    expect(reached).toEqual(expected);
  });

  it('lets the notifier (webhooks, 443 and 80) and auth (JWKS URLs, 443) alone reach the internet, and never a private, loopback or link-local address', () => {
    const reachingAddresses = ofKind<NetworkPolicy>(production, 'NetworkPolicy').flatMap((policy) =>
      (policy.spec.egress ?? []).filter((rule) => rule.to?.some((peer) => peer.ipBlock)).map((rule) => ({ policy: policy.metadata.name, rule })),
    );
    expect(reachingAddresses.map(({ policy }) => policy).sort()).toEqual(['auth', 'notifier']);
    const publicOnly = [
      { ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '127.0.0.0/8', '100.64.0.0/10'] } },
    ];
    const ruleOf = (name: string) => reachingAddresses.find(({ policy }) => policy === name)!.rule;
    expect(ruleOf('notifier').to).toEqual(publicOnly);
    expect(ruleOf('notifier').ports).toEqual([
      { protocol: 'TCP', port: 443 },
      { protocol: 'TCP', port: 80 },
    ]);
    expect(ruleOf('auth').to).toEqual(publicOnly);
    expect(ruleOf('auth').ports).toEqual([{ protocol: 'TCP', port: 443 }]);
  });
});

describe('deploy/overlays/production Ingress', () => {
  type Ingress = KubernetesObject & {
    spec: {
      tls: { hosts: string[]; secretName: string }[];
      rules: { host: string; http: { paths: { path: string; pathType: string; backend: { service: { name: string; port: { name: string } } } }[] } }[];
    };
  };
  const [ingress] = ofKind<Ingress>(production, 'Ingress');

  /** The Service a request path reaches, as the Ingress API matches paths (Exact, then the longest Prefix by segments). */
  function serviceFor(path: string): string | undefined {
    const paths = ingress!.spec.rules[0]!.http.paths;
    const exact = paths.find((entry) => entry.pathType === 'Exact' && entry.path === path);
    const prefixes = paths
      .filter((entry) => entry.pathType === 'Prefix' && (path === entry.path || path.startsWith(`${entry.path.replace(/\/$/, '')}/`)))
      .sort((a, b) => b.path.length - a.path.length);
    return (exact ?? prefixes[0])?.backend.service.name;
  }

  it('serves one host, the one WEB_PUBLIC_URL names, over TLS', () => {
    const host = new URL(environment('gateway').values.WEB_PUBLIC_URL!).host;
    expect(ingress!.spec.rules.map((rule) => rule.host)).toEqual([host]);
    expect(ingress!.spec.tls).toEqual([{ hosts: [host], secretName: expect.any(String) }]);
  });

  it("routes the API to the gateway's public port, the inbox to the web app's, and nothing else", () => {
    const routes = [
      '/',
      '/api/openapi.json',
      '/api/v1/token/login',
      '/api/v1/clinic/tasks',
      '/api/v2/fhir/metadata',
      '/api/v2/fhir/Bundle',
      '/inbox',
      '/inbox/',
    ];
    expect(Object.fromEntries(routes.map((path) => [path, serviceFor(path)]))).toEqual({
      '/': 'gateway',
      '/api/openapi.json': 'gateway',
      '/api/v1/token/login': 'gateway',
      '/api/v1/clinic/tasks': 'gateway',
      '/api/v2/fhir/metadata': 'gateway',
      '/api/v2/fhir/Bundle': 'gateway',
      '/inbox': 'web',
      '/inbox/': 'web',
    });
    expect(['/metrics', '/health/ready', '/internal/jwks', '/apix'].filter((path) => serviceFor(path) !== undefined)).toEqual([]);
    expect(ingress!.spec.rules[0]!.http.paths.map((entry) => entry.backend.service.port.name)).toEqual(['http', 'http', 'http']);
  });
});

describe('the Secrets the overlays read', () => {
  /** The ways a manifest names a Secret: Kubernetes' own, KEDA's, CloudNativePG's and the topology operator's. */
  interface SecretReferences {
    secretKeyRef?: { name: string; key: string };
    secretTargetRef?: { name: string; key: string }[];
    /** A volume's (`secretName`, the keys it mounts) or a CloudNativePG bootstrap's (`name`, a basic-auth Secret). */
    secret?: { secretName?: string; items?: { key: string }[]; name?: string };
    passwordSecret?: { name: string };
    importCredentialsSecret?: { name: string };
    /** An Ingress's certificates, or the RabbitMQ operator's server certificate and CA. */
    tls?: { secretName: string }[] | { secretName?: string; caSecretName?: string };
    /** CloudNativePG's server certificate and CA. */
    certificates?: { serverTLSSecret?: string; serverCASecret?: string };
    /** ingress-nginx's CA to verify the upstreams with, `<namespace>/<secret>`. */
    annotations?: Record<string, string>;
  }

  /** Every Secret and key the objects name, as `<secret> <key>`. */
  function referenced(objects: readonly KubernetesObject[]): string[] {
    const found = new Set<string>();
    const add = (name: string, keys: string[]) => keys.forEach((key) => found.add(`${name} ${key}`));
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (typeof node !== 'object' || node === null) return;
      const { secretKeyRef, secretTargetRef, secret, passwordSecret, importCredentialsSecret, tls, certificates, annotations } = node as SecretReferences;
      if (secretKeyRef) add(secretKeyRef.name, [secretKeyRef.key]);
      for (const target of secretTargetRef ?? []) add(target.name, [target.key]);
      const mounted = secret?.secretName ? (secret.items ?? []).map((item) => item.key) : [];
      if (secret?.secretName) add(secret.secretName, mounted);
      for (const basicAuth of [secret?.name, passwordSecret?.name, importCredentialsSecret?.name]) if (basicAuth) add(basicAuth, ['username', 'password']);
      for (const certificate of Array.isArray(tls) ? tls : [tls ?? {}]) if (certificate.secretName) add(certificate.secretName, ['tls.crt', 'tls.key']);
      for (const ca of [!Array.isArray(tls) && tls?.caSecretName, certificates?.serverCASecret]) if (ca) add(ca, ['ca.crt']);
      if (certificates?.serverTLSSecret) add(certificates.serverTLSSecret, ['tls.crt', 'tls.key']);
      const upstreamCa = annotations?.['nginx.ingress.kubernetes.io/proxy-ssl-secret'];
      if (upstreamCa) add(upstreamCa.slice(upstreamCa.indexOf('/') + 1), ['ca.crt']);
      Object.values(node).forEach(visit);
    };
    objects.forEach(visit);
    return [...found].sort();
  }

  it('are each listed in deploy/README.md, key by key, and nothing else is', () => {
    const readme = readFileSync(join(DEPLOY_DIR, 'README.md'), 'utf8');
    // A Secret of the same name in both namespaces (the internal CA) is listed in each.
    const documented = [
      ...new Set(
        [...readme.matchAll(/^\| `([a-z][a-z0-9-]+)` \| ([^|]+) \|/gm)].flatMap(([, secret, keys]) =>
          [...keys!.matchAll(/`([^`]+)`/g)].map(([, key]) => `${secret} ${key}`),
        ),
      ),
    ].sort();
    expect(documented).toEqual([...new Set([...referenced(production), ...referenced(infrastructure)])].sort());
  });
});

describe('deploy/overlays/infrastructure-example', () => {
  const plan = provisionPlan(job().values, { generatePasswords: false });
  const dataNamespace = infrastructure.find((object) => object.kind === 'Namespace')!.metadata.name;

  it('runs PostgreSQL on three instances and RabbitMQ on three nodes, where the services look for them', () => {
    const cluster = ofKind<KubernetesObject & { spec: { instances: number; bootstrap: { initdb: { database: string } } } }>(infrastructure, 'Cluster');
    expect(cluster.map((entry) => entry.spec.instances)).toEqual([3]);
    expect(infrastructureAddress('POSTGRES_ADDRESS')).toBe(`${cluster[0]!.metadata.name}-rw.${dataNamespace}.svc:5432`);
    expect(infrastructureAddress('POSTGRES_DATABASE')).toBe(cluster[0]!.spec.bootstrap.initdb.database);
    const broker = ofKind<KubernetesObject & { spec: { replicas: number } }>(infrastructure, 'RabbitmqCluster');
    expect(broker.map((entry) => entry.spec.replicas)).toEqual([3]);
    // Its TLS port: it takes no other (encryption-in-transit.spec.ts).
    expect(infrastructureAddress('RABBITMQ_ADDRESS')).toBe(`${broker[0]!.metadata.name}.${dataNamespace}.svc:5671`);
  });

  it('runs Redis with its ACL users from an aclfile in a Secret, where the services look for it', () => {
    const redis = find<Workload>(infrastructure, 'StatefulSet', 'bedrequest-redis');
    const service = find<KubernetesObject & { spec: { ports: { port: number }[] } }>(infrastructure, 'Service', 'bedrequest-redis');
    expect(infrastructureAddress('REDIS_ADDRESS')).toBe(`${service.metadata.name}.${dataNamespace}.svc:${service.spec.ports[0]!.port}`);
    const configuration = ofKind(infrastructure, 'ConfigMap').find((map) => map.metadata.name.startsWith('bedrequest-redis'))!.data!['redis.conf']!;
    const aclfile = /^aclfile (\S+)$/m.exec(configuration)![1]!;
    const pod = redis.spec.template.spec as Workload['spec']['template']['spec'] & {
      volumes: { name: string; secret?: { secretName: string; items: { key: string; path: string }[] } }[];
    };
    const mounts = (pod.containers[0] as Container & { volumeMounts: { name: string; mountPath: string }[] }).volumeMounts;
    const fromSecret = pod.volumes.flatMap((volume) =>
      (volume.secret?.items ?? []).map((item) => `${mounts.find((mount) => mount.name === volume.name)!.mountPath}/${item.path}`),
    );
    expect(fromSecret).toContain(aclfile);
  });

  it('gives the broker users the rights provisioning gives them (tools/provision/src/plan.ts)', () => {
    type Rights = KubernetesObject & { spec: { userReference: { name: string }; vhost: string; permissions: Record<string, string> } };
    const rightsOf = (kind: string, user: string) => ofKind<Rights>(infrastructure, kind).filter((entry) => entry.spec.userReference.name === user);
    for (const principal of plan.broker) {
      const user = principal.user.replace(/_/g, '-');
      find(infrastructure, 'User', user);
      expect(rightsOf('Permission', user).map((entry) => ({ vhost: entry.spec.vhost, ...entry.spec.permissions }))).toEqual([
        { vhost: '/', configure: principal.configure, write: principal.write, read: principal.read },
      ]);
      expect(rightsOf('TopicPermission', user).map((entry) => ({ vhost: entry.spec.vhost, ...entry.spec.permissions }))).toEqual([
        { vhost: '/', exchange: plan.eventsExchange, write: principal.publish, read: principal.consume },
      ]);
    }
  });

  it('lets KEDA read the queues it watches and do nothing else', () => {
    const scaledQueues = ofKind<KubernetesObject & { spec: { triggers: { type: string; metadata: { queueName?: string } }[] } }>(
      production,
      'ScaledObject',
    ).flatMap((scaledObject) => scaledObject.spec.triggers.filter((trigger) => trigger.type === 'rabbitmq').map((trigger) => trigger.metadata.queueName!));
    const users = ofKind(infrastructure, 'User').map((user) => user.metadata.name);
    const keda = users.filter((user) => !plan.broker.some((principal) => principal.user.replace(/_/g, '-') === user));
    expect(keda).toEqual(['bedrequest-keda']);
    const [permission] = ofKind<KubernetesObject & { spec: { userReference: { name: string }; permissions: Record<string, string> } }>(
      infrastructure,
      'Permission',
    ).filter((entry) => entry.spec.userReference.name === 'bedrequest-keda');
    const readable = new RegExp(permission!.spec.permissions.read!);
    const everything = [plan.eventsExchange, ...Object.values(declareTopology(plan.namespace).queues).map((queue) => queue.name)];
    expect(everything.filter((name) => readable.test(name)).sort()).toEqual([...scaledQueues].sort());
    expect([permission!.spec.permissions.configure, permission!.spec.permissions.write]).toEqual(['^$', '^$']);
    expect(
      ofKind(infrastructure, 'TopicPermission').filter((entry) => (entry.spec as { userReference: { name: string } }).userReference.name === 'bedrequest-keda'),
    ).toEqual([]);
  });
});
