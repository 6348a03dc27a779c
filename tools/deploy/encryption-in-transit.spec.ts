import { environmentOf, find, ofKind, renderOverlay, type Container, type KubernetesObject, type Workload } from './manifests';
import { allowsConnection } from './network-policies';

/**
 * The production overlay speaks TLS on every connection inside the cluster, verified against the
 * internal CA, and the infrastructure example's servers take TLS only (docs/operations.md,
 * "Encryption in transit"). What the services do with these settings is
 * tools/faults/encryption-in-transit.faults.spec.ts's.
 */

const production = renderOverlay('production');
const infrastructure = renderOverlay('infrastructure-example');
const SERVICES = ['gateway', 'web', 'auth', 'intake', 'routing', 'notifier'] as const;

type Mount = { name: string; mountPath: string };
type Volume = { name: string; configMap?: { name: string }; secret?: { secretName: string; items?: { key: string; path: string }[] } };
type Pod = Workload & { spec: { template: { spec: { volumes?: Volume[]; containers: (Container & { volumeMounts?: Mount[] })[] } } } };

/** What a file path in a container is, read from its mounts: `ConfigMap <name> <key>` or `Secret <name> <key>`. */
function sourceOf(pod: Pod, path: string): string | undefined {
  const container = pod.spec.template.spec.containers[0]!;
  for (const mount of container.volumeMounts ?? []) {
    if (!path.startsWith(`${mount.mountPath}/`)) continue;
    const file = path.slice(mount.mountPath.length + 1);
    const volume = pod.spec.template.spec.volumes!.find((entry) => entry.name === mount.name)!;
    if (volume.configMap) return `ConfigMap ${volume.configMap.name} ${file}`;
    const item = volume.secret!.items?.find((entry) => entry.path === file);
    return `Secret ${volume.secret!.secretName} ${item?.key ?? file}`;
  }
  return undefined;
}

const deployment = (name: string) => find<Pod>(production, 'Deployment', name);
const environment = (name: string) => environmentOf(deployment(name).spec.template.spec.containers[0]!, production).values;

describe('deploy/overlays/production, in transit', () => {
  it.each(SERVICES)(
    'has %s verify PostgreSQL, RabbitMQ, Redis and the other services against the internal CA, and serve https with its own certificate',
    (name) => {
      const values = environment(name);
      const pod = deployment(name);
      const urls = Object.entries(values).filter(([variable]) => /_URL$/.test(variable) && variable !== 'WEB_PUBLIC_URL' && variable !== 'AUTH_ISSUER_URL');
      expect(urls.length).toBeGreaterThan(0);
      const plain = urls.filter(([variable, value]) => {
        const url = new URL(value);
        if (variable === 'DATABASE_URL') return url.searchParams.get('sslmode') !== 'verify-full';
        return !['amqps:', 'rediss:', 'https:', 'smtps:'].includes(url.protocol);
      });
      expect(plain).toEqual([]);
      expect({
        ca: sourceOf(pod, values.TLS_CA_FILE!),
        cert: sourceOf(pod, values.TLS_CERT_FILE!),
        key: sourceOf(pod, values.TLS_KEY_FILE!),
      }).toEqual({ ca: 'ConfigMap bedrequest-internal-ca ca.crt', cert: `Secret ${name}-tls tls.crt`, key: `Secret ${name}-tls tls.key` });
      const container = pod.spec.template.spec.containers[0]! as Container & Record<string, { httpGet?: { scheme?: string } } | undefined>;
      expect(['startupProbe', 'livenessProbe', 'readinessProbe'].map((probe) => container[probe]?.httpGet?.scheme)).toEqual(['HTTPS', 'HTTPS', 'HTTPS']);
    },
  );

  it('has the provisioning job verify the servers against the same CA', () => {
    const job = find<Pod>(production, 'Job', 'provision');
    const values = environmentOf(job.spec.template.spec.containers[0]!, production).values;
    expect(sourceOf(job, values.TLS_CA_FILE!)).toBe('ConfigMap bedrequest-internal-ca ca.crt');
  });

  it("has KEDA verify PostgreSQL, and the Ingress controller verify the gateway's and the web app's certificates", () => {
    const [trigger] = find<KubernetesObject & { spec: { triggers: { metadata: Record<string, string> }[] } }>(production, 'ScaledObject', 'notifier').spec
      .triggers;
    expect(trigger!.metadata.sslmode).toBe('verify-full');
    for (const ingress of ofKind(production, 'Ingress')) {
      expect(ingress.metadata.annotations).toMatchObject({
        'nginx.ingress.kubernetes.io/backend-protocol': 'HTTPS',
        'nginx.ingress.kubernetes.io/proxy-ssl-verify': 'on',
        'nginx.ingress.kubernetes.io/proxy-ssl-secret': 'bedrequest/bedrequest-internal-ca',
      });
    }
  });
});

describe('deploy/overlays/infrastructure-example, in transit', () => {
  const data = infrastructure.find((object) => object.kind === 'Namespace')!.metadata.name;
  const services = { namespace: 'bedrequest', labels: { 'app.kubernetes.io/name': 'intake' } };
  const reachable = (server: string, port: number) =>
    allowsConnection(infrastructure, services, { namespace: data, labels: { 'app.kubernetes.io/name': server } }, { containerPort: port });

  it('serves PostgreSQL by TLS only, with a certificate of the internal CA', () => {
    const [cluster] = ofKind<KubernetesObject & { spec: { certificates: Record<string, string>; postgresql: { pg_hba: string[] } } }>(
      infrastructure,
      'Cluster',
    );
    expect(cluster!.spec.certificates).toEqual({ serverTLSSecret: 'bedrequest-postgres-tls', serverCASecret: 'bedrequest-internal-ca' });
    expect(cluster!.spec.postgresql.pg_hba).toContain('hostnossl all all all reject');
  });

  it('serves RabbitMQ by TLS only, AMQP on 5671 and the management API on 15671, which alone the services and provisioning may reach', () => {
    const [broker] = ofKind<KubernetesObject & { spec: { tls: Record<string, unknown> } }>(infrastructure, 'RabbitmqCluster');
    expect(broker!.spec.tls).toEqual({ secretName: 'bedrequest-rabbitmq-tls', caSecretName: 'bedrequest-internal-ca', disableNonTLSListeners: true });
    const name = broker!.metadata.name;
    expect([5671, 5672].map((port) => reachable(name, port))).toEqual([true, false]);
    const provision = { namespace: 'bedrequest', labels: { 'app.kubernetes.io/name': 'provision' } };
    const management = (port: number) =>
      allowsConnection(infrastructure, provision, { namespace: data, labels: { 'app.kubernetes.io/name': name } }, { containerPort: port });
    expect([15671, 15672].map(management)).toEqual([true, false]);
  });

  it('serves Redis by TLS only, with its certificate and the CA mounted where redis.conf reads them', () => {
    const configuration = ofKind(infrastructure, 'ConfigMap').find((map) => map.metadata.name.startsWith('bedrequest-redis'))!.data!['redis.conf']!;
    const setting = (key: string) => new RegExp(`^${key} (\\S+)$`, 'm').exec(configuration)?.[1];
    expect({ port: setting('port'), tls: setting('tls-port') }).toEqual({ port: '0', tls: '6379' });
    const redis = find<Pod>(infrastructure, 'StatefulSet', 'bedrequest-redis');
    expect(['tls-cert-file', 'tls-key-file', 'tls-ca-cert-file'].map((key) => sourceOf(redis, setting(key)!))).toEqual([
      'Secret bedrequest-redis-tls tls.crt',
      'Secret bedrequest-redis-tls tls.key',
      'Secret bedrequest-internal-ca ca.crt',
    ]);
    expect(reachable('bedrequest-redis', 6379)).toBe(true);
  });
});
