import { matches, ofKind, type KubernetesObject } from './manifests';

/**
 * Whether the NetworkPolicies let a connection through, read as Kubernetes reads them: a pod that
 * a policy of its namespace selects for a direction takes only what one of those policies allows
 * in that direction; a connection needs both the caller's egress and the callee's ingress. Peers
 * by pod and namespace labels (matchLabels only) and by IP block; pods' addresses are not modelled,
 * so an IP block never matches a pod.
 */

export interface Endpoint {
  namespace: string;
  labels: Record<string, string>;
}

/** A port of the callee: its number, and its name where the container names it. */
export interface TargetPort {
  name?: string;
  containerPort: number;
}

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: unknown[];
}

export interface PolicyPeer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: { cidr: string; except?: string[] };
}

export interface PolicyRule {
  from?: PolicyPeer[];
  to?: PolicyPeer[];
  ports?: { protocol?: string; port?: number | string; endPort?: number }[];
}

export interface NetworkPolicy extends KubernetesObject {
  spec: { podSelector: Selector; policyTypes: ('Ingress' | 'Egress')[]; ingress?: PolicyRule[]; egress?: PolicyRule[] };
}

const namespaceLabels = (endpoint: Endpoint) => ({ 'kubernetes.io/metadata.name': endpoint.namespace });

function selects(policy: NetworkPolicy, endpoint: Endpoint): boolean {
  return (policy.metadata.namespace ?? '') === endpoint.namespace && matches(policy.spec.podSelector.matchLabels, endpoint.labels);
}

function peerMatches(peer: PolicyPeer, policyNamespace: string, endpoint: Endpoint): boolean {
  if (peer.ipBlock) return false;
  const inNamespace = peer.namespaceSelector ? matches(peer.namespaceSelector.matchLabels, namespaceLabels(endpoint)) : endpoint.namespace === policyNamespace;
  return inNamespace && (!peer.podSelector || matches(peer.podSelector.matchLabels, endpoint.labels));
}

function portMatches(rule: PolicyRule, port: TargetPort): boolean {
  if (!rule.ports || rule.ports.length === 0) return true;
  return rule.ports.some((allowed) => {
    if ((allowed.protocol ?? 'TCP') !== 'TCP') return false;
    if (allowed.port === undefined) return true;
    if (typeof allowed.port === 'string') return allowed.port === port.name;
    return port.containerPort >= allowed.port && port.containerPort <= (allowed.endPort ?? allowed.port);
  });
}

function permits(policies: readonly NetworkPolicy[], direction: 'Ingress' | 'Egress', subject: Endpoint, peer: Endpoint, port: TargetPort): boolean {
  const applicable = policies.filter((policy) => policy.spec.policyTypes.includes(direction) && selects(policy, subject));
  if (applicable.length === 0) return true;
  return applicable.some((policy) =>
    (direction === 'Ingress' ? policy.spec.ingress : policy.spec.egress)?.some((rule) => {
      const peers = direction === 'Ingress' ? rule.from : rule.to;
      const namespace = policy.metadata.namespace ?? '';
      return (!peers || peers.length === 0 || peers.some((candidate) => peerMatches(candidate, namespace, peer))) && portMatches(rule, port);
    }),
  );
}

/** Whether `from` may open a TCP connection to `port` of `to`. */
export function allowsConnection(objects: readonly KubernetesObject[], from: Endpoint, to: Endpoint, port: TargetPort): boolean {
  const policies = ofKind<NetworkPolicy>(objects, 'NetworkPolicy');
  return permits(policies, 'Egress', from, to, port) && permits(policies, 'Ingress', to, from, port);
}
