import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * The Kubernetes manifests under deploy/ as kubectl renders them, and the parts of them the checks
 * read: workloads and their containers, ConfigMaps, and a container's environment as the kubelet
 * would give it (envFrom, then env, with `$(VAR)` references expanded).
 */

export const DEPLOY_DIR = join(__dirname, '..', '..', 'deploy');

export interface Metadata {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: Metadata;
  spec?: unknown;
  data?: Record<string, string>;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } };
}

export interface Probe {
  httpGet?: { path: string; port: string | number };
  tcpSocket?: { port: string | number };
  exec?: { command: string[] };
}

export interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type: string };
}

export interface Container {
  name: string;
  image: string;
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  securityContext?: SecurityContext;
}

export interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  securityContext?: SecurityContext;
  initContainers?: Container[];
  containers: Container[];
}

export interface Workload extends KubernetesObject {
  spec: { replicas?: number; selector?: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: PodSpec } };
}

/** Kinds that run pods from a template, and whether their containers run until stopped (and so need probes). */
export const WORKLOAD_KINDS: Record<string, { longRunning: boolean }> = {
  Deployment: { longRunning: true },
  StatefulSet: { longRunning: true },
  DaemonSet: { longRunning: true },
  Job: { longRunning: false },
};

/**
 * `kubectl kustomize <overlay>`, parsed. Without kubectl this throws one line saying so: the
 * manifests cannot be checked without rendering them as a deployment would.
 */
export function renderOverlay(overlay: string): KubernetesObject[] {
  let rendered: string;
  try {
    rendered = execFileSync('kubectl', ['kustomize', join(DEPLOY_DIR, 'overlays', overlay)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const { code, stderr } = error as NodeJS.ErrnoException & { stderr?: string };
    if (code === 'ENOENT') throw new Error('kubectl (with kustomize v5) is not installed: deploy/ cannot be rendered and checked');
    throw new Error(`kubectl kustomize deploy/overlays/${overlay} failed: ${String(stderr).trim()}`);
  }
  return parseAllDocuments(rendered)
    .map((document) => document.toJS() as KubernetesObject | null)
    .filter((object): object is KubernetesObject => object !== null);
}

export const nameOf = (object: KubernetesObject) => `${object.kind}/${object.metadata.name}`;

export function ofKind<T extends KubernetesObject = KubernetesObject>(objects: readonly KubernetesObject[], kind: string): T[] {
  return objects.filter((object) => object.kind === kind) as T[];
}

/** The one object of `kind` named `name`; throws when there is none. */
export function find<T extends KubernetesObject = KubernetesObject>(objects: readonly KubernetesObject[], kind: string, name: string): T {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name}`);
  return found as T;
}

export function workloadsOf(objects: readonly KubernetesObject[]): Workload[] {
  return objects.filter((object) => object.kind in WORKLOAD_KINDS) as Workload[];
}

/** Every container of every workload, init containers marked. */
export function containersOf(objects: readonly KubernetesObject[]): { workload: Workload; container: Container; init: boolean }[] {
  return workloadsOf(objects).flatMap((workload) => [
    ...(workload.spec.template.spec.initContainers ?? []).map((container) => ({ workload, container, init: true })),
    ...workload.spec.template.spec.containers.map((container) => ({ workload, container, init: false })),
  ]);
}

/**
 * A stand-in for a Secret's value, of the form its reader checks: a data key-encryption key is
 * base64 of 32 bytes, anything else a hex string (passwords go into URLs as they are).
 */
export function secretValue(secret: string, key: string): string {
  const digest = createHash('sha256').update(`${secret}/${key}`).digest();
  // A relay's URL with its credentials: the form docs/operations.md ("E-mail") asks for in production.
  if (key === 'SMTP_URL') return `smtps://bedrequest:${digest.toString('hex')}@relay.example.org:465`;
  return key.endsWith('DATA_KEK') ? digest.toString('base64') : digest.toString('hex');
}

/** How each variable of a container's environment is set. */
export interface ResolvedEnvironment {
  values: Record<string, string>;
  /** Variables from a Secret: variable → [secret, key]. */
  fromSecrets: Record<string, [string, string]>;
  /** Variables that other variables' values reference as `$(NAME)`. */
  referenced: Set<string>;
}

/**
 * The environment the kubelet gives `container`: the ConfigMaps of envFrom, then each env entry in
 * order, `$(NAME)` in a value replaced by an earlier variable's value (an unknown one stays as
 * written, as the kubelet leaves it). Secrets' values are stand-ins (secretValue).
 */
export function environmentOf(container: Container, objects: readonly KubernetesObject[]): ResolvedEnvironment {
  const configMap = (name: string) => find(objects, 'ConfigMap', name).data ?? {};
  const values: Record<string, string> = {};
  const fromSecrets: Record<string, [string, string]> = {};
  const referenced = new Set<string>();
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) Object.assign(values, configMap(source.configMapRef.name));
    if (source.secretRef) throw new Error(`${container.name}: envFrom a Secret hides which keys it takes; use secretKeyRef`);
  }
  for (const variable of container.env ?? []) {
    const { secretKeyRef, configMapKeyRef } = variable.valueFrom ?? {};
    if (secretKeyRef) {
      values[variable.name] = secretValue(secretKeyRef.name, secretKeyRef.key);
      fromSecrets[variable.name] = [secretKeyRef.name, secretKeyRef.key];
    } else if (configMapKeyRef) {
      values[variable.name] = configMap(configMapKeyRef.name)[configMapKeyRef.key] ?? '';
    } else {
      values[variable.name] = (variable.value ?? '').replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (reference, name: string) => {
        referenced.add(name);
        return values[name] ?? reference;
      });
    }
  }
  return { values, fromSecrets, referenced };
}

/** Whether `labels` carry every pair of `selector`. */
export function matches(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  return Object.entries(selector ?? {}).every(([key, value]) => labels?.[key] === value);
}
